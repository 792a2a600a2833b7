import type { Address } from './address.js';
import type { Customs } from './customs.js';
import { formatAmount } from './money.js';
import type { ShipmentOptions } from './options.js';
import type { Parcel } from './parcel.js';

/** The fields of a stored shipment that its public JSON is made from. */
export interface ShipmentRecord {
  id: string;
  livemode: boolean;
  status: string;
  reference: string | null;
  serviceCode: string;
  carrier: string | null;
  serviceName: string | null;
  priceNet: number | null;
  priceVat: number | null;
  priceGross: number | null;
  currency: string;
  chargedTo: string;
  trackingNumber: string | null;
  trackingStatus: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  /** The batch the shipment was bought in; absent or null outside one. */
  batchId?: string | null;
  fromAddress: unknown;
  toAddress: unknown;
  parcel: unknown;
  isReturn?: boolean;
  options?: unknown;
  customs?: unknown;
  /** The shipment this one returns (POST /shipments/{shipment}/return); null otherwise. */
  returnOf?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const LABEL_FORMAT_LIST = ['pdf_6x4', 'pdf_a4', 'zpl'] as const;

/** The statuses whose shipment has a label: a batch's merged file holds exactly these items' labels. */
export const LABELLED_STATUSES: readonly string[] = ['purchased', 'in_transit', 'exception', 'delivered', 'voiding'];
const LABELLED = new Set(LABELLED_STATUSES);

/** Whether a shipment in this status has a label (pending, failed and voided ones have none). */
export const hasLabel = (status: string) => LABELLED.has(status);

/** The shipment as customers see it (spec §2 and the contract's Resources). */
export function shipmentToJson(s: ShipmentRecord) {
  return {
    id: s.id,
    object: 'shipment',
    livemode: s.livemode,
    status: s.status,
    reference: s.reference,
    service: { code: s.serviceCode, carrier: s.carrier, name: s.serviceName },
    price:
      s.priceGross === null
        ? null
        : {
            net: formatAmount(s.priceNet ?? 0),
            vat: formatAmount(s.priceVat ?? 0),
            gross: formatAmount(s.priceGross),
            currency: s.currency,
          },
    charged_to: s.chargedTo,
    from: s.fromAddress as Address,
    to: s.toAddress as Address,
    parcel: s.parcel as Parcel,
    is_return: s.isReturn ?? false,
    options: (s.options ?? {}) as ShipmentOptions,
    customs: (s.customs ?? null) as Customs | null,
    return_of: s.returnOf ?? null,
    tracking: { number: s.trackingNumber, status: s.trackingStatus },
    label: hasLabel(s.status) ? { formats: [...LABEL_FORMAT_LIST], url: `/api/v1/shipments/${s.id}/label` } : null,
    ...(s.failureCode ? { failure: { code: s.failureCode, message: s.failureMessage ?? '' } } : {}),
    batch_id: s.batchId ?? null,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
export type ShipmentJson = ReturnType<typeof shipmentToJson>;
