import type { Address, Customs, Parcel } from '../../../domain/index.js';

/** Canned inputs and DHL answers for the DHL Express mapping tests, shaped as the MyDHL API document's examples. */

export const ACCOUNT = '123456789';
export const REFERENCE = 'shp_01j9zq0example0000000000';
export const AT = new Date('2026-03-02T09:30:15.250Z');

export const GB_FROM: Address = { name: 'Ann Shipper', company: 'Tower Books Ltd', line1: '1 Tower Bridge Rd', line2: 'Unit 4', city: 'London', postcode: 'SE1 2UP', country: 'GB', phone: '+44 20 7946 0000', email: 'ann@example.com' };
export const DE_TO: Address = { name: 'Bert Empfänger', line1: 'Friedrichstraße 43', city: 'Berlin', postcode: '10117', country: 'DE', phone: '+49 30 1234567' };
export const FR_TO: Address = { name: 'Rémi Destinataire', line1: '3 Rue Haute', city: 'Paris', postcode: '75001', country: 'FR', phone: '+33 1 2345 6789' };
export const PARCEL: Parcel = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 105 };

export const CUSTOMS: Customs = {
  contents_type: 'merchandise',
  contents_explanation: null,
  non_delivery: 'return',
  incoterm: 'DDP',
  signer: 'Ann Shipper',
  tax_ids: [{ type: 'eori', number: 'GB123456789000', owner: 'sender' }],
  invoice_number: 'INV-1001',
  currency: 'GBP',
  items: [
    { description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'PT', sku: 'TS-01' },
    { description: 'Paperback novel', quantity: 3, value: '25.50', weight_g: 900, origin_country: 'GB' },
  ],
};

/** A rates answer as the document's `supermodelIoLogisticsExpressRates` has it, one product we do not sell among them. */
export const RATES_ANSWER = {
  products: [
    {
      productName: 'EXPRESS WORLDWIDE',
      productCode: 'P',
      localProductCode: 'P',
      networkTypeCode: 'TD',
      isCustomerAgreement: false,
      weight: { volumetric: 1.26, provided: 1.5, unitOfMeasurement: 'metric' },
      totalPrice: [
        { currencyType: 'BILLC', priceCurrency: 'GBP', price: 41.27 },
        { currencyType: 'PULCL', priceCurrency: 'GBP', price: 41.27 },
        { currencyType: 'BASEC', priceCurrency: 'EUR', price: 48.1 },
      ],
      deliveryCapabilities: { deliveryTypeCode: 'QDDC', estimatedDeliveryDateAndTime: '2026-03-04T23:59:00', totalTransitDays: 2 },
    },
    {
      productName: 'EXPRESS 12:00',
      productCode: 'Y',
      weight: { provided: 1.5, unitOfMeasurement: 'metric' },
      totalPrice: [{ currencyType: 'BILLC', priceCurrency: 'GBP', price: 63 }],
      deliveryCapabilities: { totalTransitDays: 1 },
    },
    {
      productName: 'EXPRESS EASY',
      productCode: '8',
      weight: { provided: 1.5, unitOfMeasurement: 'metric' },
      totalPrice: [{ currencyType: 'BILLC', priceCurrency: 'GBP', price: 55 }],
    },
  ],
};

/** A created shipment as the document's `nonDocInternationalShipmentResponse` example has it. */
export const SHIPMENT_ANSWER = {
  shipmentTrackingNumber: '1103733901',
  trackingUrl: 'https://express.api.dhl.com/mydhlapi/shipments/1103733901/tracking',
  packages: [{ referenceNumber: 1, trackingNumber: 'JD014600004617230770' }],
  documents: [
    { imageFormat: 'PDF', content: 'JVBERi0xLjQKbGFiZWw=', typeCode: 'label' },
    { imageFormat: 'PDF', content: 'JVBERi0xLjQKaW52b2ljZQ==', typeCode: 'invoice' },
  ],
  shipmentCharges: [
    { currencyType: 'BILLC', priceCurrency: 'GBP', price: 41.27, serviceBreakdown: [{ name: 'EXPRESS WORLDWIDE', price: 41.27 }] },
    { currencyType: 'BASEC', priceCurrency: 'EUR', price: 48.1 },
  ],
};

/** The document's tracking example, trimmed to a few checkpoints, each with the GMT offset we ask for. */
export const TRACKING_ANSWER = {
  shipments: [
    {
      shipmentTrackingNumber: '1103733901',
      status: 'Success',
      productCode: 'P',
      events: [
        { date: '2026-03-03', time: '13:56:21', GMTOffset: '+11:00', typeCode: 'PU', description: 'Shipment picked up', serviceArea: [{ code: 'SYD', description: 'SYDNEY-AU' }] },
        { date: '2026-03-03', time: '09:50:00', GMTOffset: '+00:00', typeCode: 'AR', description: 'Arrived at DHL Delivery Facility - BERLIN-DE', serviceArea: [{ code: 'BER', description: 'BERLIN-DE' }] },
        { date: '2026-03-03', time: '10:50:14', GMTOffset: '+01:00', typeCode: 'WC', description: 'Shipment is out with courier for delivery', serviceArea: [{ code: 'BER', description: 'BERLIN-DE' }] },
        { date: '2026-03-03', time: '13:59:23', GMTOffset: '+01:00', typeCode: 'OK', description: 'Delivered : BERT E', serviceArea: [{ code: 'BER', description: 'BERLIN-DE' }], signedBy: 'BERT E' },
      ],
    },
  ],
};
