import type { Address, Customs, Parcel } from '../../../domain/index.js';

/**
 * Canned FedEx payloads written from the documents (Ship, Rates and Transit Times, Basic Integrated
 * Visibility, Pickup Request): our inputs, the requests FedEx must receive for them, and answers as
 * FedEx sends them.
 */

export const ACCOUNT = '740561073';

export const US_FROM: Address = { name: 'Ann Shipper', company: 'Tower Books', line1: '2311 York Rd', line2: 'Suite 2', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US', phone: '+1 (410) 555-0100', email: 'ann@example.com' };
export const US_TO: Address = { name: 'Bob Buyer', company: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US', phone: '404 555 0101' };
export const CA_TO: Address = { name: 'Claire Client', line1: '1 Sparks St', city: 'Ottawa', state: 'ON', postcode: 'K1A 0B1', country: 'CA', phone: '613-555-0199' };
export const PARCEL: Parcel = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };

export const CUSTOMS: Customs = {
  contents_type: 'merchandise',
  contents_explanation: null,
  non_delivery: 'return',
  incoterm: 'DDP',
  signer: 'Ann Shipper',
  eel_pfc: 'NOEEI 30.37(a)',
  tax_ids: [{ type: 'ein', number: '12-3456789', owner: 'sender' }],
  currency: 'USD',
  items: [
    { description: 'Cotton T-shirt', quantity: 3, value: '30.00', weight_g: 600, hs_tariff_number: '610910', origin_country: 'PT', sku: 'TS-01' },
    { description: 'Paperback book', quantity: 1, value: '12.50', weight_g: 400, origin_country: 'US' },
  ],
};

/** 1.5 kg in pounds, rounded up to a tenth; 300 × 200 × 100 mm in whole inches, rounded up. */
const US_PACKAGE = { weight: { units: 'LB', value: 3.4 }, dimensions: { length: 12, width: 8, height: 4, units: 'IN' } };
/** Across a border: kilograms and centimetres, the commodities' unit. */
const METRIC_PACKAGE = { weight: { units: 'KG', value: 1.5 }, dimensions: { length: 30, width: 20, height: 10, units: 'CM' } };

/** Every US service, to a business, with a signature and a declared value. */
export const RATE_REQUEST = {
  accountNumber: { value: ACCOUNT },
  rateRequestControlParameters: { returnTransitTimes: true },
  requestedShipment: {
    shipper: { address: { city: 'Timonium', stateOrProvinceCode: 'MD', postalCode: '21093', countryCode: 'US', residential: false } },
    recipient: { address: { city: 'Alpharetta', stateOrProvinceCode: 'GA', postalCode: '30005', countryCode: 'US', residential: false } },
    rateRequestType: ['ACCOUNT', 'LIST'],
    pickupType: 'DROPOFF_AT_FEDEX_LOCATION',
    packagingType: 'YOUR_PACKAGING',
    requestedPackageLineItems: [
      { ...US_PACKAGE, declaredValue: { amount: 150, currency: 'USD' }, packageSpecialServices: { specialServiceTypes: ['SIGNATURE_OPTION'], signatureOptionType: 'DIRECT' } },
    ],
  },
};

/** A rate answer: two services we sell (ACCOUNT and LIST rates), and SmartPost, which we do not. */
export const RATE_RESPONSE = {
  transactionId: '624deea6-b709-470c-8c39-4b5511281492',
  output: {
    rateReplyDetails: [
      {
        serviceType: 'FEDEX_GROUND',
        serviceName: 'FedEx Ground®',
        ratedShipmentDetails: [
          { rateType: 'ACCOUNT', totalNetCharge: 11.88, shipmentRateDetail: { currency: 'USD' } },
          { rateType: 'LIST', totalNetCharge: 13.2, shipmentRateDetail: { currency: 'USD' } },
        ],
        commit: { daysInTransit: 'FIVE_DAYS' },
      },
      { serviceType: 'SMART_POST', ratedShipmentDetails: [{ rateType: 'LIST', totalNetCharge: 7.1, shipmentRateDetail: { currency: 'USD' } }] },
      {
        serviceType: 'PRIORITY_OVERNIGHT',
        ratedShipmentDetails: [{ rateType: 'LIST', totalNetCharge: 64.62, shipmentRateDetail: { currency: 'USD' } }],
        operationalDetail: { transitTime: 'ONE_DAY' },
      },
    ],
    quoteDate: '2026-11-29',
  },
};

/** US to Canada with the customs, FedEx's invoice asked for, and our shipment id as the reference. */
export const SHIP_REQUEST_ABROAD = {
  labelResponseOptions: 'LABEL',
  accountNumber: { value: ACCOUNT },
  requestedShipment: {
    shipDatestamp: '2026-11-29',
    pickupType: 'DROPOFF_AT_FEDEX_LOCATION',
    serviceType: 'FEDEX_INTERNATIONAL_PRIORITY',
    packagingType: 'YOUR_PACKAGING',
    totalWeight: 1.5,
    shipper: {
      address: { streetLines: ['2311 York Rd', 'Suite 2'], city: 'Timonium', stateOrProvinceCode: 'MD', postalCode: '21093', countryCode: 'US', residential: false },
      contact: { personName: 'Ann Shipper', phoneNumber: '4105550100', companyName: 'Tower Books', emailAddress: 'ann@example.com' },
      tins: [{ number: '12-3456789', tinType: 'FEDERAL' }],
    },
    recipients: [
      {
        address: { streetLines: ['1 Sparks St'], city: 'Ottawa', stateOrProvinceCode: 'ON', postalCode: 'K1A0B1', countryCode: 'CA', residential: true },
        contact: { personName: 'Claire Client', phoneNumber: '6135550199' },
      },
    ],
    shippingChargesPayment: { paymentType: 'SENDER' },
    customsClearanceDetail: {
      dutiesPayment: { paymentType: 'SENDER' },
      commercialInvoice: {
        originatorName: 'Ann Shipper',
        customerReferences: [{ customerReferenceType: 'INVOICE_NUMBER', value: 'shp_01jfedex0000000000000000' }],
        termsOfSale: 'DDP',
        shipmentPurpose: 'SOLD',
      },
      commodities: [
        {
          description: 'Cotton T-shirt',
          countryOfManufacture: 'PT',
          quantity: 3,
          quantityUnits: 'PCS',
          unitPrice: { amount: 10, currency: 'USD' },
          customsValue: { amount: 30, currency: 'USD' },
          weight: { units: 'KG', value: 0.6 },
          harmonizedCode: '610910',
          partNumber: 'TS-01',
        },
        {
          description: 'Paperback book',
          countryOfManufacture: 'US',
          quantity: 1,
          quantityUnits: 'PCS',
          unitPrice: { amount: 12.5, currency: 'USD' },
          customsValue: { amount: 12.5, currency: 'USD' },
          weight: { units: 'KG', value: 0.4 },
        },
      ],
      totalCustomsValue: { amount: 42.5, currency: 'USD' },
      exportDetail: { exportComplianceStatement: 'NOEEI 30.37(a)' },
    },
    shippingDocumentSpecification: { shippingDocumentTypes: ['COMMERCIAL_INVOICE'], commercialInvoiceDetail: { documentFormat: { stockType: 'PAPER_LETTER', docType: 'PDF' } } },
    labelSpecification: { imageType: 'PNG', labelStockType: 'PAPER_4X6' },
    totalPackageCount: 1,
    requestedPackageLineItems: [
      { subPackagingType: 'CARTON', customerReferences: [{ customerReferenceType: 'CUSTOMER_REFERENCE', value: 'shp_01jfedex0000000000000000' }], ...METRIC_PACKAGE },
    ],
  },
};

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF_BASE64 = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');

/** A ship answer: the label as a PNG in the piece, the commercial invoice among the shipment documents. */
export const SHIP_RESPONSE = {
  transactionId: '624deea6-b709-470c-8c39-4b5511281492',
  output: {
    transactionShipments: [
      {
        serviceType: 'FEDEX_INTERNATIONAL_PRIORITY',
        masterTrackingNumber: '794953535000',
        shipmentDocuments: [{ contentType: 'COMMERCIAL_INVOICE', copiesToPrint: 1, docType: 'PDF', trackingNumber: '794953535000', encodedLabel: PDF_BASE64 }],
        pieceResponses: [
          {
            trackingNumber: '794953535000',
            netChargeAmount: 76.1,
            packageDocuments: [{ contentType: 'LABEL', copiesToPrint: 1, docType: 'PNG', encodedLabel: PNG_BASE64 }],
          },
        ],
        completedShipmentDetail: {
          shipmentRating: {
            actualRateType: 'PAYOR_ACCOUNT_SHIPMENT',
            shipmentRateDetails: [
              { rateType: 'PAYOR_LIST_SHIPMENT', totalNetCharge: 84.55, currency: 'USD' },
              { rateType: 'PAYOR_ACCOUNT_SHIPMENT', totalNetCharge: 76.1, currency: 'USD' },
            ],
          },
        },
      },
    ],
  },
};
export const LABEL_PNG = PNG_BASE64;
export const INVOICE_PDF = PDF_BASE64;

/** A tracking answer, newest first as FedEx sends it: created, picked up, on the vehicle, delivered, and a code we do not map. */
export const TRACK_RESPONSE = {
  transactionId: 't1',
  output: {
    completeTrackResults: [
      {
        trackingNumber: '794953535000',
        trackResults: [
          {
            trackingNumberInfo: { trackingNumber: '794953535000', carrierCode: 'FDXE' },
            scanEvents: [
              { date: '2026-11-30T14:02:00-05:00', eventType: 'DL', eventDescription: 'Delivered', derivedStatusCode: 'DL', scanLocation: { city: 'OTTAWA', postalCode: 'K1A0B1', countryCode: 'CA' } },
              { date: '2026-11-30T08:10:00-05:00', eventType: 'OD', eventDescription: 'On FedEx vehicle for delivery', derivedStatusCode: 'OD', scanLocation: { city: 'OTTAWA', countryCode: 'CA' } },
              { date: '2026-11-29T20:00:00-05:00', eventType: 'ZZ', eventDescription: 'A code FedEx adds later' },
              { date: '2026-11-29T17:30:00-05:00', eventType: 'PU', eventDescription: 'Picked up', derivedStatusCode: 'PU', scanLocation: { city: 'TIMONIUM', postalCode: '21093', countryCode: 'US' } },
              { date: '2026-11-29T12:00:00-05:00', eventType: 'OC', eventDescription: 'Shipment information sent to FedEx', derivedStatusCode: 'IN' },
            ],
          },
        ],
      },
    ],
  },
};

/** A number FedEx does not know: the error sits in the track result of a 200. */
export const TRACK_NOT_FOUND = {
  transactionId: 't2',
  output: {
    completeTrackResults: [
      { trackingNumber: '799999999999', trackResults: [{ trackingNumberInfo: { trackingNumber: '799999999999' }, error: { code: 'TRACKING.TRACKINGNUMBER.NOTFOUND', message: 'Tracking number cannot be found.' } }] },
    ],
  },
};

/** A reference lookup: ours (cancelled), another's whose reference only starts like ours. */
export const REFERENCE_RESPONSE = {
  transactionId: 't3',
  output: {
    completeTrackResults: [
      {
        trackingNumber: 'shp_01jfedex0000000000000000',
        trackResults: [
          {
            trackingNumberInfo: { trackingNumber: '794953535000' },
            additionalTrackingInfo: { packageIdentifiers: [{ type: 'CUSTOMER_REFERENCE', value: ['shp_01jfedex0000000000000000'] }] },
            serviceDetail: { type: 'FEDEX_INTERNATIONAL_PRIORITY' },
            latestStatusDetail: { code: 'CA', derivedCode: 'CA', description: 'Shipment cancelled' },
          },
          {
            trackingNumberInfo: { trackingNumber: '794953535111' },
            additionalTrackingInfo: { packageIdentifiers: [{ type: 'CUSTOMER_REFERENCE', value: ['shp_01jfedex0000000000000000-2'] }] },
            serviceDetail: { type: 'FEDEX_GROUND' },
            latestStatusDetail: { code: 'OC' },
          },
        ],
      },
    ],
  },
};
