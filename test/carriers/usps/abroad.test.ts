import { describe, expect, it } from 'vitest';
import type { Address, Customs } from '../../../domain/index.js';
import {
  buildUspsExtraQuery,
  buildUspsIntlExtraQuery,
  buildUspsIntlLabelRequest,
  buildUspsIntlRateRequests,
  buildUspsLabelRequest,
  buildUspsReturnLabelRequest,
  parseUspsExtraPrices,
  parseUspsIntlLabelResponse,
  parseUspsRateResponse,
  parseUspsReturnLabelResponse,
  uspsIntlProblems,
  uspsIntlServiceByCode,
} from '../../../carriers/usps/mapping.js';
import { uspsDefinition } from '../../../carriers/usps/index.js';
import { FROM_US, MAILING_DATE, PARCEL_US, SHIPMENT_ID, TO_US } from './payloads.js';
import { LABELS_JSON, uspsAnswerProblems, uspsRequestProblems } from './schema-check.js';

const TO_CA: Address = { name: 'Jean Tremblay', line1: '100 Queen St W', city: 'Toronto', state: 'ON', postcode: 'M5H 2N2', country: 'CA', phone: '+1 (416) 555-0100' };
const CUSTOMS: Customs = {
  contents_type: 'merchandise',
  contents_explanation: null,
  non_delivery: 'return',
  incoterm: 'DDU',
  signer: 'Sam Wilson',
  currency: 'USD',
  invoice_number: 'INV-1001',
  tax_ids: [{ type: 'vat', number: 'CA123456789', owner: 'recipient' }],
  items: [{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'PT' }],
};
const PMI = uspsIntlServiceByCode('usps_priority_mail_international')!;

// Written from international-prices.yaml's BaseRatesQuery and its BaseRatesSearchResponseExample.
describe('USPS international prices', () => {
  it('asks one base-rates search per international mail class that takes the parcel', () => {
    const requests = buildUspsIntlRateRequests(FROM_US, TO_CA, PARCEL_US, 'all', MAILING_DATE, { accountNumber: '1000000000' });
    // 4.41 lb: First-Class Package International takes 4 lb at most.
    expect(requests.map((r) => r.service.code)).toEqual(['usps_priority_mail_international', 'usps_priority_mail_express_international']);
    expect(requests[0].body).toEqual({
      originZIPCode: '20024',
      foreignPostalCode: 'M5H 2N2',
      destinationCountryCode: 'CA',
      weight: 4.41,
      length: 11.82,
      width: 7.88,
      height: 3.94,
      mailClass: 'PRIORITY_MAIL_INTERNATIONAL',
      processingCategory: 'MACHINABLE',
      rateIndicator: 'SP',
      destinationEntryFacilityType: 'NONE',
      priceType: 'COMMERCIAL',
      mailingDate: MAILING_DATE,
      accountType: 'EPS',
      accountNumber: '1000000000',
    });
    for (const r of requests) expect(uspsRequestProblems('international-base-rates', r.body)).toEqual([]);
  });

  it('reads the document example answer as the net price', () => {
    const example = { rates: [{ mailClass: 'PRIORITY_MAIL_INTERNATIONAL', priceType: 'COMMERCIAL_BASE', zone: '01', rateIndicator: 'SP', processingCategory: 'MACHINABLE', price: 50.6 }], totalBasePrice: 50.6 };
    expect(parseUspsRateResponse(PMI as never, example)?.net).toBe(5060);
  });

  it('prices insurance of the declared value with the international extra-service search', () => {
    const query = buildUspsIntlExtraQuery(PMI, TO_CA, PARCEL_US, { declared_value: '120.00' }, MAILING_DATE);
    expect(query).toEqual({ extraServices: [930], mailClass: 'PRIORITY_MAIL_INTERNATIONAL', priceType: 'COMMERCIAL', itemValue: '120.00', weight: 4.41, mailingDate: MAILING_DATE, rateIndicator: 'SP', destinationCountryCode: 'CA' });
    expect(uspsRequestProblems('international-extra-service-rates', query)).toEqual([]);
    expect(buildUspsIntlExtraQuery(PMI, TO_CA, PARCEL_US, { declared_value: '500.01' }, MAILING_DATE)?.extraServices).toEqual([931]);
    expect(buildUspsIntlExtraQuery(PMI, TO_CA, PARCEL_US, {}, MAILING_DATE)).toBeNull();
    const answer = { extraServices: [{ priceType: 'COMMERCIAL', price: 15.0, extraService: 930, name: 'Insurance <= $500' }] };
    expect(uspsAnswerProblems('international-extra-service-rates', 200, answer)).toEqual([]);
    expect(parseUspsExtraPrices(answer, [930])).toBe(1500);
    expect(parseUspsExtraPrices(answer, [931])).toBeUndefined();
  });
});

// Written from international-labels.yaml: InternationalLabelRequest, InternationalCustomsForm, the response example.
describe('USPS international labels', () => {
  it('builds the label request with its customs form from our declaration', () => {
    const body = buildUspsIntlLabelRequest({ service: PMI, reference: SHIPMENT_ID, from: { ...FROM_US, phone: '202-555-0199', email: 'ship@example.com' }, to: TO_CA, parcel: PARCEL_US, customs: CUSTOMS, options: { declared_value: '60.00' }, mailingDate: MAILING_DATE, imageType: 'PDF' });
    expect(body).toEqual({
      imageInfo: { imageType: 'PDF', labelType: '4X6LABEL' },
      toAddress: { firm: 'Jean Tremblay', streetAddress: '100 Queen St W', city: 'Toronto', postalCode: 'M5H 2N2', province: 'ON', country: 'Canada', countryISOAlpha2Code: 'CA', phone: '+14165550100' },
      fromAddress: { firm: 'Sam Wilson Supply Co', streetAddress: '45 L St SW', city: 'Washington', state: 'DC', ZIPCode: '20024', phone: '2025550199', email: 'ship@example.com' },
      packageDescription: {
        mailClass: 'PRIORITY_MAIL_INTERNATIONAL',
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
        packageOptions: { packageValue: 60, nonDeliveryOption: 'RETURN' },
        customerReference: [{ referenceNumber: SHIPMENT_ID }],
        extraServices: [930],
      },
      customsForm: {
        customsContentType: 'MERCHANDISE',
        AESITN: 'NO EEI 30.37(a)',
        invoiceNumber: 'INV-1001',
        importersReference: { referenceType: 'VAT_NUMBER', reference: 'CA123456789' },
        contents: [{ itemDescription: 'Cotton T-shirt', itemQuantity: 2, itemTotalValue: 30, weightUOM: 'lb', itemTotalWeight: 0.89, HSTariffNumber: '610910', countryofOrigin: 'PT' }],
      },
    });
    expect(uspsRequestProblems('international-label', body)).toEqual([]);
  });

  it('refuses, naming our field, what the document does not take; never truncates', () => {
    const long = { ...CUSTOMS, currency: 'EUR', invoice_number: 'INV-1234567890123', items: [{ ...CUSTOMS.items[0], description: 'A very long description of a shirt', value: '3000.00' }, { ...CUSTOMS.items[0], description: 'Gift' }] };
    const paths = uspsIntlProblems(FROM_US, { ...TO_CA, postcode: '12345', phone: '12' }, long).map((p) => p.path);
    expect(paths).toEqual(['to.postcode', 'to.phone', 'customs.currency', 'customs.invoice_number', 'customs.eel_pfc', 'customs.items[0].description', 'customs.items[1].description']);
    expect(uspsIntlProblems(FROM_US, TO_CA, undefined).map((p) => p.path)).toEqual(['customs']);
    expect(uspsIntlProblems(FROM_US, TO_CA, CUSTOMS)).toEqual([]);
  });

  it('reads the document example answer: the S10 number, postage plus extra services, the label file', () => {
    const example = { internationalTrackingNumber: 'EZ000012162US', constructCode: 'I01', postage: 286.03, extraServices: [{ serviceID: '930', serviceName: 'Insurance <= $500', price: 2.5, sku: 'NA', warnings: [] }], internationalPriceGroup: '12', weightUOM: 'lb', weight: 23.0, dimensionalWeight: '0.0', mailingDate: '2023-12-01', fees: [], labelImage: 'JVBERi0xLjQK' };
    expect(uspsAnswerProblems('international-label', 201, example, LABELS_JSON)).toEqual([]);
    expect(parseUspsIntlLabelResponse(example)).toEqual({ trackingNumber: 'EZ000012162US', labelBase64: 'JVBERi0xLjQK', billedCents: 28853 });
    expect(uspsDefinition.isTrackingNumber('EZ000012162US')).toBe(true);
  });
});

// Written from domestic-labels.yaml's ReturnLabelRequest, ReturnsPackageDescription and JSONReturnLabelWithEmbeddedBased64Response.
describe('USPS return labels', () => {
  it('buys the return class of the service, from the customer to the merchant', () => {
    const body = buildUspsReturnLabelRequest({ serviceCode: 'usps_priority_mail', reference: SHIPMENT_ID, from: TO_US, to: FROM_US, parcel: PARCEL_US, format: 'png' });
    expect(body).toEqual({
      imageInfo: { imageType: 'PNG', labelType: '4X6LABEL', receiptOption: 'NONE' },
      toAddress: { firm: 'Sam Wilson Supply Co', streetAddress: '45 L St SW', city: 'Washington', state: 'DC', ZIPCode: '20024' },
      fromAddress: { firm: 'Nick Fury', streetAddress: '2700 S Jefferson Ave', secondaryAddress: 'STE 150', city: 'St. Louis', state: 'MO', ZIPCode: '63104', ZIPPlus4: '2351' },
      packageDescription: { mailClass: 'PRIORITY_MAIL_RETURN_SERVICE', rateIndicator: 'SP', processingCategory: 'MACHINABLE', weightUOM: 'lb', weight: 4.41, dimensionsUOM: 'in', length: 11.82, width: 7.88, height: 3.94, customerReference: [{ referenceNumber: SHIPMENT_ID }] },
    });
    expect(uspsRequestProblems('return-label', body)).toEqual([]);
  });

  it('reads the document example answer', () => {
    const example = { trackingNumber: '9405509898644824249889', SKU: '12345', postage: 8.75, extraServices: [{ name: 'Certified Mail', SKU: '67890', price: 3.5 }], zone: '03', returnLabelImage: 'iVBORw0KGgo=' };
    expect(uspsAnswerProblems('return-label', 200, example, LABELS_JSON)).toEqual([]);
    expect(parseUspsReturnLabelResponse(example, 'png')).toEqual({ trackingNumber: '9405509898644824249889', label: { format: 'png', contentBase64: 'iVBORw0KGgo=' }, billed: { amount: 1225, currency: 'USD' }, carrierShipmentId: '9405509898644824249889' });
  });
});

// Written from domestic-prices.yaml's ExtraServiceRateQuery / ExtraServiceRateDetails and domestic-labels' packageDescription.
describe('USPS extra services for signature and insurance', () => {
  it('prices them with the extra-service search and sends them on the label', () => {
    const query = buildUspsExtraQuery({ mailClass: 'PRIORITY_MAIL', originZIP: '20024', destinationZIP: '63104', weightLb: 4.41, mailingDate: MAILING_DATE }, { signature: 'adult', declared_value: '750.00' });
    expect(query).toEqual({ extraServices: [922, 931], mailClass: 'PRIORITY_MAIL', priceType: 'COMMERCIAL', itemValue: 750, weight: 4.41, originZIPCode: '20024', destinationZIPCode: '63104', mailingDate: MAILING_DATE });
    expect(uspsRequestProblems('extra-service-rates', query)).toEqual([]);
    const answer = [{ extraService: '922', name: 'Adult Signature Required', priceType: 'COMMERCIAL', price: 9.1 }, { extraService: '931', name: 'Insurance > $500', priceType: 'COMMERCIAL', price: 12.35 }];
    expect(uspsAnswerProblems('extra-service-rates', 200, answer)).toEqual([]);
    expect(parseUspsExtraPrices(answer, [922, 931])).toBe(2145);

    const label = buildUspsLabelRequest({ shipmentId: SHIPMENT_ID, serviceCode: 'usps_priority_mail_express', from: FROM_US, to: TO_US, parcel: PARCEL_US, format: 'png', mailingDate: MAILING_DATE, options: { signature: 'required', declared_value: '80.00' } });
    expect(label.body.packageDescription).toMatchObject({ extraServices: [981, 930], packageOptions: { packageValue: 80 }, physicalSignatureRequired: true });
    expect(uspsRequestProblems('label', label.body)).toEqual([]);
    const plain = buildUspsLabelRequest({ shipmentId: SHIPMENT_ID, serviceCode: 'usps_ground_advantage', from: FROM_US, to: TO_US, parcel: PARCEL_US, format: 'png', mailingDate: MAILING_DATE });
    expect(plain.body.packageDescription).not.toHaveProperty('extraServices');
  });

  it('declares which options each service honours: Saturday on Priority Mail Express only, insurance only abroad', () => {
    const options = Object.fromEntries(uspsDefinition.services.map((s) => [s.code, s.options]));
    expect(options.usps_priority_mail_express).toHaveProperty('saturday_delivery');
    expect(options.usps_priority_mail).not.toHaveProperty('saturday_delivery');
    expect(options.usps_priority_mail_international).toEqual({ declared_value_per_100: 0 });
    expect(uspsDefinition.capabilities).toMatchObject({ international: true, returns: true, customsPaperwork: 'in_label' });
  });
});
