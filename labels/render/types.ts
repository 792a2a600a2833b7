import type { Address } from '../../domain/index.js';

export type LabelFormat = 'pdf_6x4' | 'pdf_a4' | 'zpl';

export const LABEL_FORMATS: readonly LabelFormat[] = Object.freeze(['pdf_6x4', 'pdf_a4', 'zpl'] as const);

export interface LabelInput {
  shipmentId: string;
  trackingNumber: string;
  carrierName: string;
  serviceName: string;
  reference: string | null;
  from: Address;
  to: Address;
  weightG: number;
  /** ISO 8601 date of purchase, shown as YYYY-MM-DD. */
  date: string;
  /** Sandbox labels say plainly they are not for shipping. */
  sandbox: boolean;
}
