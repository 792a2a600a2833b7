import type { Address, Parcel } from '../../../domain/index.js';

/**
 * Canned USPS payloads, written from the v3 documents (domestic-prices, domestic-labels, payments,
 * tracking) for the addresses and parcel below, the way USPS would send or expect them.
 */

type UsAddress = Address & { state: string };

export const FROM_US: UsAddress = { name: 'Sam Wilson Supply Co', line1: '45 L St SW', city: 'Washington', state: 'DC', postcode: '20024', country: 'US' };
export const TO_US: UsAddress = {
  name: 'Nick Fury',
  line1: '2700 S Jefferson Ave',
  line2: 'STE 150',
  city: 'St. Louis',
  state: 'mo',
  postcode: '63104-2351',
  country: 'us',
};
/** 2 kg, 300 × 100 × 200 mm: 4.41 lb, 11.82 × 7.88 × 3.94 in, machinable. */
export const PARCEL_US: Parcel = { weight_g: 2000, length_mm: 300, width_mm: 100, height_mm: 200 };
export const SHIPMENT_ID = 'shp_01hzx3k9q2abcdefghjkmnpqrs';
export const MAILING_DATE = '2026-07-01';

export const EXPECTED_TOKEN_REQUEST = { grant_type: 'client_credentials', client_id: 'client-123', client_secret: 'secret-456' };

export const EXPECTED_PAYMENT_REQUEST = {
  roles: [
    { roleName: 'PAYER', CRID: '12345678', MID: '123456', manifestMID: '123456', accountType: 'EPS', accountNumber: '1000000000' },
    { roleName: 'LABEL_OWNER', CRID: '12345678', MID: '123456', manifestMID: '123456' },
  ],
};

export const PAYMENT_RESPONSE = {
  paymentAuthorizationToken: 'header.body.signature',
  roles: [
    { roleName: 'PAYER', CRID: '12345678', MID: '123456', manifestMID: '123456', accountType: 'EPS', accountNumber: '1000000000' },
    { roleName: 'LABEL_OWNER', CRID: '12345678', MID: '123456', manifestMID: '123456' },
  ],
};

export const EXPECTED_PRIORITY_RATE_QUERY = {
  originZIPCode: '20024',
  destinationZIPCode: '63104',
  weight: 4.41,
  length: 11.82,
  width: 7.88,
  height: 3.94,
  mailClass: 'PRIORITY_MAIL',
  processingCategory: 'MACHINABLE',
  rateIndicator: 'SP',
  destinationEntryFacilityType: 'NONE',
  priceType: 'COMMERCIAL',
  mailingDate: MAILING_DATE,
  accountType: 'EPS',
  accountNumber: '1000000000',
};

/** The document's `BaseRatesSearchExample`, with its prices. */
export const BASE_RATE_RESPONSE = {
  totalBasePrice: 8.65,
  rates: [
    {
      SKU: 'DUXP0RXXUC01080',
      description: 'USPS Ground Advantage Nonstandard Single-piece',
      priceType: 'COMMERCIAL',
      price: 4.65,
      weight: 0.5,
      dimWeight: 0,
      fees: [{ name: 'Nonstandard Length > 22', price: 4 }],
      startDate: '2025-07-13',
      endDate: '2025-10-04',
      warnings: [{ warningCode: '001', warningDescription: 'Contract rate not found for request. Published rate returned.' }],
      mailClass: 'USPS_GROUND_ADVANTAGE',
      zone: '01',
      processingCategory: 'NONSTANDARD',
      destinationEntryFacilityType: 'NONE',
      rateIndicator: 'SP',
    },
  ],
};

export const EXPECTED_LABEL_REQUEST = {
  imageInfo: { imageType: 'PDF', labelType: '4X6LABEL', receiptOption: 'NONE' },
  toAddress: {
    firm: 'Nick Fury',
    streetAddress: '2700 S Jefferson Ave',
    secondaryAddress: 'STE 150',
    city: 'St. Louis',
    state: 'MO',
    ZIPCode: '63104',
    ZIPPlus4: '2351',
  },
  fromAddress: { firm: 'Sam Wilson Supply Co', streetAddress: '45 L St SW', city: 'Washington', state: 'DC', ZIPCode: '20024' },
  packageDescription: {
    mailClass: 'USPS_GROUND_ADVANTAGE',
    rateIndicator: 'SP',
    weightUOM: 'lb',
    weight: 4.41,
    dimensionsUOM: 'in',
    length: 11.82,
    width: 7.88,
    height: 3.94,
    processingCategory: 'MACHINABLE',
    destinationEntryFacilityType: 'NONE',
    mailingDate: MAILING_DATE,
    customerReference: [{ referenceNumber: SHIPMENT_ID }],
  },
};

const PDF_BASE64 = Buffer.from('%PDF-1.4\n% a 4x6 label\n%%EOF\n').toString('base64');

/** A `LabelVendorResponse` (`Accept: application/vnd.usps.labels+json`). */
export const LABEL_RESPONSE = {
  labelAddress: { firm: 'NICK FURY', streetAddress: '2700 S JEFFERSON AVE', secondaryAddress: 'STE 150', city: 'SAINT LOUIS', state: 'MO', ZIPCode: '63104', ZIPPlus4: '2351' },
  routingInformation: '420631042351',
  trackingNumber: '9205590006662200704797',
  constructCode: 'C01',
  SKU: 'DUXP0RXXUC01080',
  postage: 10.99,
  extraServices: [{ name: 'USPS Tracking', price: 0 }],
  zone: '05',
  mailingDate: '2026-07-01T22:00:00Z',
  commitment: { name: '2-Day', expectedDeliveryDate: '2026-07-03', isPriorityMailNextDay: false },
  weightUOM: 'lb',
  weight: 4.41,
  dimensionalWeight: 0,
  fees: [],
  bannerText: 'USPS TRACKING # USPS Ship',
  retailDistributionCode: '01',
  serviceTypeCode: '001',
  labelImage: PDF_BASE64,
};

const { labelImage: _image, ...LABEL_METADATA } = LABEL_RESPONSE;

/** A `LabelReprintDomesticOutboundResponse`. */
export const REPRINT_RESPONSE = { labelMetadata: LABEL_METADATA, labelImage: PDF_BASE64, reprintInfo: { reprintNumber: 1, reprintLimit: 3 } };

export { PDF_BASE64 };

/** The document's cancel error examples (`ExampleCancelError_*`), by name. */
export const cancelError = (detail: string) => ({
  apiVersion: '/labels/v3',
  error: { code: '400', message: 'Bad Request', errors: [{ title: 'Bad Request', detail, code: '00000XX', source: { parameter: 'trackingNumber' } }] },
});
export const CANCEL_NOT_FOUND = cancelError('Order not found');
export const CANCEL_REFUND_NOT_SUBMITTED = cancelError('A refund request for this order cannot be submitted');
export const CANCEL_REFUND_SAME_DAY = cancelError('A refund request for this order has already been submitted today');

/** `TrackingDetails` (`expand=DETAIL`), events newest first as USPS lists them. */
export const TRACKING_RESPONSE = {
  trackingNumber: '9205590006662200704797',
  mailClass: 'PRIORITY_MAIL',
  status: 'Delivered, Front Door/Porch',
  statusCategory: 'Delivered',
  statusSummary: 'Your item was delivered at the front door or porch at 12:01 pm on July 3, 2026 in SAINT LOUIS, MO 63104.',
  trackingEvents: [
    { eventType: 'Delivered, Front Door/Porch', eventTimestamp: '2026-07-03T12:01:00', GMTTimestamp: '2026-07-03T17:01:00.000Z', GMTOffset: '-05:00', eventCountry: '', eventCity: 'SAINT LOUIS', eventState: 'MO', eventZIP: '63104', eventCode: '01' },
    { eventType: 'Out for Delivery', eventTimestamp: '2026-07-03T06:10:00', GMTOffset: '-5:00', eventCity: 'SAINT LOUIS', eventState: 'MO', eventZIP: '63104', eventCode: 'OF' },
    { eventType: 'Departed USPS Regional Facility', eventTimestamp: '2026-07-02T21:40:00-05:00', eventCity: 'SAINT LOUIS MO DISTRIBUTION CENTER', eventState: 'MO', eventZIP: '63155', eventCode: 'EF' },
    { eventType: 'USPS picked up item', eventTimestamp: '2026-07-01T16:05:00', GMTTimestamp: '2026-07-01T20:05:00Z', GMTOffset: '-4:00', eventCity: 'WASHINGTON', eventState: 'DC', eventZIP: '20024', eventCode: '03' },
    { eventType: 'Shipping Label Created, USPS Awaiting Item', eventTimestamp: '2026-07-01T09:12:00', GMTTimestamp: '2026-07-01T13:12:00Z', eventCity: 'WASHINGTON', eventState: 'DC', eventZIP: '20024', eventCode: 'GX' },
  ],
};
