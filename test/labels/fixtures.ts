import type { LabelInput } from '../../labels/render/index.js';

/** Tracking numbers in the shapes carriers use: prefixed alphanumeric, S10 (UPU), all digits. */
export const TRACKING_SHAPES = ['ACM123456789012', 'SP123456785GB', '1234567890123456', '1Z999AA10123456784'] as const;

export function labelInput(overrides: Partial<LabelInput> = {}): LabelInput {
  return {
    shipmentId: 'shp_01J0000000000000000000000',
    trackingNumber: 'ACM123456789012',
    carrierName: 'Acme Parcel',
    serviceName: 'Express 24h',
    reference: 'ORDER-4711',
    from: { name: 'Zoë Müller', line1: 'Hauptstraße 5', city: 'Berlin', postcode: '10115', country: 'DE' },
    to: {
      name: 'Jean Dupont',
      line1: '12 Rue de la Paix',
      line2: 'Bâtiment B',
      city: 'Marseille',
      postcode: '13001',
      country: 'FR',
    },
    weightG: 1250,
    date: '2024-05-01T10:11:12Z',
    sandbox: false,
    ...overrides,
  };
}

export const decodeUtf8 = (bytes: Uint8Array): string => new TextDecoder('utf-8', { fatal: true }).decode(bytes);
