import { describe, expect, it } from 'vitest';
import { buildRateRequest, buildShipRequest, parseShipResponse } from '../../../carriers/ups/mapping.js';
import { upsPurchaseProblems, unitValue } from '../../../carriers/ups/mapping-international.js';
import { upsDefinition } from '../../../carriers/ups/index.js';
import { normalizeCustoms, unsupportedOption, type Address } from '../../../domain/index.js';
import { upsAnswerProblems, upsRequestProblems } from './schema-problems.js';
import { ACCOUNT, GB_FROM, PARCEL, SHIP_ANSWER, SHIPMENT_ID, US_FROM, US_TO } from './payloads.js';

/** A London shop sending two T-shirts and a mug to a New York customer, written from the contract's example. */
const FROM: Address = { ...GB_FROM, company: 'Tower Books Ltd', name: 'Ann Shipper', phone: '+44 (20) 7946-0958', email: 'ann@towerbooks.example' };
const TO: Address = { name: 'Bob Buyer', line1: '350 5th Ave', city: 'New York', state: 'ny', postcode: '10118', country: 'US', phone: '+1 212-555-0100' };
const CUSTOMS = normalizeCustoms(
  {
    contents_type: 'merchandise',
    incoterm: 'DDP',
    signer: 'Ann Shipper',
    tax_ids: [
      { type: 'eori', number: 'GB123456789000', owner: 'sender' },
      { type: 'ein', number: '12-3456789', owner: 'recipient' },
    ],
    currency: 'usd',
    items: [
      { description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'pt', sku: 'TS-01' },
      { description: 'Mug', quantity: 3, value: '10.00', weight_g: 900, origin_country: 'GB' },
    ],
  },
  'GBP',
);
const AT = '2025-03-14T09:30:00.000Z';

/** The document's invoice for this shipment: FormType 01, every value the descriptions require. */
const INVOICE = {
  FormType: ['01'],
  Contacts: {
    SoldTo: {
      Name: 'Bob Buyer',
      AttentionName: 'Bob Buyer',
      Phone: { Number: '12125550100' },
      Address: { AddressLine: ['350 5th Ave'], City: 'New York', StateProvinceCode: 'NY', PostalCode: '10118', CountryCode: 'US' },
    },
  },
  Product: [
    {
      Description: ['Cotton T-shirt'],
      Unit: { Number: '2', Value: '15.00', UnitOfMeasurement: { Code: 'PCS' } },
      CommodityCode: '610910',
      PartNumber: 'TS-01',
      OriginCountryCode: 'PT',
    },
    // No SKU: the part number is the line's number; 10.00 over 3 to UPS's six decimals.
    { Description: ['Mug'], Unit: { Number: '3', Value: '3.333333', UnitOfMeasurement: { Code: 'PCS' } }, PartNumber: '2', OriginCountryCode: 'GB' },
  ],
  // No invoice number given: the shipment id.
  InvoiceNumber: SHIPMENT_ID,
  InvoiceDate: '20250314',
  TermsOfShipment: 'DDP',
  ReasonForExport: 'SALE',
  CurrencyCode: 'USD',
};

describe('UPS abroad: the ship request', () => {
  it('builds GB to US ups_express with the commercial invoice, phones, attention names, tax ids and DDP, field for field', () => {
    const { body } = buildShipRequest({ reference: SHIPMENT_ID, serviceCode: 'ups_express', from: FROM, to: TO, parcel: PARCEL, labelFormat: 'gif', accountNumber: ACCOUNT, customs: CUSTOMS, at: AT });
    expect(body).toEqual({
      ShipmentRequest: {
        Request: { RequestOption: 'validate', SubVersion: '2409' },
        Shipment: {
          Description: 'Cotton T-shirt, Mug',
          Shipper: {
            Name: 'Tower Books Ltd',
            AttentionName: 'Ann Shipper',
            Phone: { Number: '442079460958' },
            EMailAddress: 'ann@towerbooks.example',
            ShipperNumber: ACCOUNT,
            Address: { AddressLine: ['1 Tower Bridge Rd'], City: 'London', PostalCode: 'SE12UP', CountryCode: 'GB' },
          },
          ShipTo: {
            Name: 'Bob Buyer',
            AttentionName: 'Bob Buyer',
            Phone: { Number: '12125550100' },
            Address: { AddressLine: ['350 5th Ave'], City: 'New York', StateProvinceCode: 'NY', PostalCode: '10118', CountryCode: 'US', ResidentialAddressIndicator: '' },
          },
          PaymentInformation: {
            ShipmentCharge: [
              { Type: '01', BillShipper: { AccountNumber: ACCOUNT } },
              { Type: '02', BillShipper: { AccountNumber: ACCOUNT } },
            ],
          },
          GlobalTaxInformation: {
            AgentTaxIdentificationNumber: [
              {
                AgentRole: '20',
                TaxIdentificationNumber: [
                  { IdentificationNumber: 'GB123456789000', IDNumberCustomerRole: '37', IDNumberEncryptionIndicator: '0', IDNumberPurposeCode: '02', IDNumberTypeCode: '0002', IncludeIDNumberOnShippingBrokerageDocs: '01' },
                ],
              },
              {
                AgentRole: '30',
                TaxIdentificationNumber: [
                  { IdentificationNumber: '12-3456789', IDNumberCustomerRole: '18', IDNumberEncryptionIndicator: '0', IDNumberPurposeCode: '01', IDNumberTypeCode: '1002', IncludeIDNumberOnShippingBrokerageDocs: '01' },
                ],
              },
            ],
          },
          ShipmentServiceOptions: { InternationalForms: INVOICE },
          ShipmentRatingOptions: { NegotiatedRatesIndicator: '' },
          ReferenceNumber: [{ Value: SHIPMENT_ID }],
          Service: { Code: '07' },
          Package: [
            {
              Packaging: { Code: '02', Description: 'Customer Supplied Package' },
              Dimensions: { UnitOfMeasurement: { Code: 'CM', Description: 'Centimeters' }, Length: '30', Width: '20', Height: '15' },
              PackageWeight: { UnitOfMeasurement: { Code: 'KGS', Description: 'Kilograms' }, Weight: '2.5' },
            },
          ],
        },
        LabelSpecification: { LabelImageFormat: { Code: 'GIF' }, HTTPUserAgent: 'Mozilla/4.5', LabelStockSize: { Height: '6', Width: '4' } },
      },
    });
    expect(upsRequestProblems('shipments', body)).toEqual([]);
  });

  it('a DDU invoice is DAP terms, an explanation is the reason, and a given invoice number is kept', () => {
    const customs = { ...CUSTOMS, incoterm: 'DDU' as const, contents_type: 'other' as const, contents_explanation: 'Spare parts', invoice_number: 'INV-1001', tax_ids: undefined };
    const { body } = buildShipRequest({ reference: SHIPMENT_ID, serviceCode: 'ups_saver', from: FROM, to: TO, parcel: PARCEL, labelFormat: 'gif', accountNumber: ACCOUNT, customs, at: AT });
    const shipment = body.ShipmentRequest.Shipment;
    expect(shipment.PaymentInformation!.ShipmentCharge).toEqual([{ Type: '01', BillShipper: { AccountNumber: ACCOUNT } }]);
    expect(shipment.GlobalTaxInformation).toBeUndefined();
    expect(shipment.ShipmentServiceOptions?.InternationalForms).toMatchObject({ TermsOfShipment: 'DAP', ReasonForExport: 'Spare parts', InvoiceNumber: 'INV-1001' });
    expect(upsRequestProblems('shipments', body)).toEqual([]);
  });

  it('a return label: ReturnService 9 (Print Return Label), billed to us as shipper at `to`, leaving from `from`; abroad a partial invoice without date', () => {
    const back = { ...CUSTOMS, contents_type: 'returned_goods' as const, incoterm: 'DDU' as const, tax_ids: undefined };
    const { body } = buildShipRequest({ reference: SHIPMENT_ID, serviceCode: 'ups_express', from: TO, to: FROM, parcel: PARCEL, labelFormat: 'gif', accountNumber: ACCOUNT, customs: back, isReturn: true, at: AT });
    const shipment = body.ShipmentRequest.Shipment;
    expect(shipment.ReturnService).toEqual({ Code: '9' });
    expect(shipment.Shipper).toMatchObject({ Name: 'Tower Books Ltd', ShipperNumber: ACCOUNT, Address: { City: 'London', CountryCode: 'GB' } });
    expect(shipment.ShipFrom).toEqual({
      Name: 'Bob Buyer',
      AttentionName: 'Bob Buyer',
      Phone: { Number: '12125550100' },
      Address: { AddressLine: ['350 5th Ave'], City: 'New York', StateProvinceCode: 'NY', PostalCode: '10118', CountryCode: 'US' },
    });
    // A company's address: not residential.
    expect(shipment.ShipTo.Address).not.toHaveProperty('ResidentialAddressIndicator');
    const forms = shipment.ShipmentServiceOptions?.InternationalForms;
    expect(forms).toMatchObject({ FormType: ['05'], ReasonForExport: 'RETURN', TermsOfShipment: 'DAP' });
    expect(forms).not.toHaveProperty('InvoiceDate');
    expect(upsRequestProblems('shipments', body)).toEqual([]);
  });

  it('a return whose customer gave an e-mail address sends none in ShipFrom, which UPS’s document does not define there', () => {
    const customer = { ...US_TO, email: 'customer@example.com' };
    const { body } = buildShipRequest({ reference: SHIPMENT_ID, serviceCode: 'ups_ground', from: customer, to: US_FROM, parcel: PARCEL, labelFormat: 'gif', accountNumber: ACCOUNT, isReturn: true });
    expect(body.ShipmentRequest.Shipment.ShipFrom).not.toHaveProperty('EMailAddress');
    expect(upsRequestProblems('shipments', body)).toEqual([]);
  });

  it('a domestic return carries no invoice', () => {
    const { body } = buildShipRequest({ reference: SHIPMENT_ID, serviceCode: 'ups_ground', from: US_TO, to: US_FROM, parcel: PARCEL, labelFormat: 'zpl', accountNumber: ACCOUNT, isReturn: true });
    const shipment = body.ShipmentRequest.Shipment;
    expect(shipment.ReturnService).toEqual({ Code: '9' });
    expect(shipment.ShipmentServiceOptions).toBeUndefined();
    expect(shipment.Description).toBeUndefined();
    expect(upsRequestProblems('shipments', body)).toEqual([]);
  });

  it('options: declared value and signature on the package, Saturday delivery on the shipment', () => {
    const { body } = buildShipRequest({
      reference: SHIPMENT_ID,
      serviceCode: 'ups_next_day_air',
      from: US_FROM,
      to: { ...US_TO, company: 'Happy Dog Inc' },
      parcel: PARCEL,
      labelFormat: 'zpl',
      accountNumber: ACCOUNT,
      options: { signature: 'adult', declared_value: '150.5', saturday_delivery: true },
      currency: 'usd',
    });
    const shipment = body.ShipmentRequest.Shipment;
    expect(shipment.ShipmentServiceOptions).toEqual({ SaturdayDeliveryIndicator: '' });
    expect(shipment.Package[0]!.PackageServiceOptions).toEqual({ DeclaredValue: { CurrencyCode: 'USD', MonetaryValue: '150.50' }, DeliveryConfirmation: { DCISType: '3' } });
    expect(shipment.ShipTo).toMatchObject({ Name: 'Happy Dog Inc', AttentionName: 'Happy Dog Pet Supply' });
    expect(upsRequestProblems('shipments', body)).toEqual([]);
  });
});

describe('UPS abroad: rating', () => {
  it('prices options, the residential flag and a return, with the declared value in 8 characters', () => {
    const { body } = buildRateRequest({
      from: US_FROM,
      to: US_TO,
      parcel: PARCEL,
      service: 'ups_2nd_day_air',
      accountNumber: ACCOUNT,
      options: { signature: 'required', declared_value: '150.00', saturday_delivery: true },
      currency: 'USD',
      isReturn: true,
    });
    const shipment = body.RateRequest.Shipment;
    expect(shipment.ShipTo.Address.ResidentialAddressIndicator).toBe('');
    expect(shipment.Package[0]!.PackageServiceOptions).toEqual({ DeclaredValue: { CurrencyCode: 'USD', MonetaryValue: '00150.00' }, DeliveryConfirmation: { DCISType: '2' } });
    expect(shipment.ShipmentServiceOptions).toEqual({ SaturdayDeliveryIndicator: '', ReturnService: { Code: '9' } });
    expect(upsRequestProblems('rating', body)).toEqual([]);
  });

  it('rates a return as Shipping buys it: our account as shipper at `to`, leaving from the customer at `from`', () => {
    // The customer in New York sends back to the shop in London: UPS bills the shop's account, in its currency.
    const { body } = buildRateRequest({ from: TO, to: FROM, parcel: PARCEL, service: 'ups_express', accountNumber: ACCOUNT, isReturn: true });
    const rated = body.RateRequest.Shipment;
    const { body: shipBody } = buildShipRequest({ reference: SHIPMENT_ID, serviceCode: 'ups_express', from: TO, to: FROM, parcel: PARCEL, labelFormat: 'gif', accountNumber: ACCOUNT, customs: { ...CUSTOMS, contents_type: 'returned_goods' as const }, isReturn: true, at: AT });
    const shipped = shipBody.ShipmentRequest.Shipment;
    expect(rated.Shipper).toMatchObject({ ShipperNumber: ACCOUNT, Address: shipped.Shipper.Address });
    expect(rated.Shipper.Address).toMatchObject({ City: 'London', CountryCode: 'GB' });
    expect(rated.ShipFrom).toEqual({ Name: 'Bob Buyer', Address: shipped.ShipFrom!.Address });
    expect(rated.ShipTo.Address.CountryCode).toBe('GB');
    expect(upsRequestProblems('rating', body)).toEqual([]);
  });

  it('rates a forward shipment from the shipper alone, with no ShipFrom', () => {
    const { body } = buildRateRequest({ from: FROM, to: TO, parcel: PARCEL, service: 'ups_express', accountNumber: ACCOUNT });
    expect(body.RateRequest.Shipment.Shipper.Address.CountryCode).toBe('GB');
    expect(body.RateRequest.Shipment).not.toHaveProperty('ShipFrom');
  });
});

describe('UPS abroad: the answer and the refusals', () => {
  it('keeps the Form image as the commercial invoice', () => {
    const answer = structuredClone(SHIP_ANSWER) as typeof SHIP_ANSWER & { ShipmentResponse: { ShipmentResults: Record<string, unknown> } };
    answer.ShipmentResponse.ShipmentResults.Form = { Code: '01', Description: 'All Requested International Forms', Image: { ImageFormat: { Code: 'PDF', Description: 'PDF' }, GraphicImage: 'JVBERi0xLjcK' } };
    expect(upsAnswerProblems('shipments', 200, answer)).toEqual([]);
    expect(parseShipResponse(answer)?.documents).toEqual([{ type: 'commercial_invoice', format: 'pdf', contentBase64: 'JVBERi0xLjcK' }]);
    expect(parseShipResponse(SHIP_ANSWER)).not.toHaveProperty('documents');
  });

  it('names each field a purchase abroad lacks or UPS cannot take, never cutting it', () => {
    const long = 'x'.repeat(36);
    const problems = upsPurchaseProblems({
      from: { ...FROM, phone: undefined, company: long },
      to: { ...TO, phone: '+1 (212) 555-0100 999 999' },
      customs: { ...CUSTOMS, invoice_number: long, items: [{ ...CUSTOMS.items[0]!, sku: long }] },
      options: { declared_value: '100000.00' },
    });
    expect(problems.map((p) => p.path)).toEqual(['from.phone', 'from.company', 'to.phone', 'options.declared_value', 'customs.invoice_number', 'customs.items[0].sku']);
    expect(upsPurchaseProblems({ from: US_FROM, to: US_TO })).toEqual([]);
  });

  it('declares per service what it honours: Saturday only on air and express services', () => {
    const service = (code: string) => upsDefinition.services.find((s) => s.code === code)!;
    expect(unsupportedOption(service('ups_ground').options, { saturday_delivery: true })).toBe('options.saturday_delivery');
    expect(unsupportedOption(service('ups_express').options, { saturday_delivery: true, signature: 'adult', declared_value: '10.00' })).toBeNull();
    expect(upsDefinition.capabilities).toMatchObject({ international: true, returns: true, customsPaperwork: 'carrier_invoice' });
  });

  it('declares that a return label takes no signature (DeliveryConfirmation is for forward shipments only)', () => {
    for (const service of upsDefinition.services) {
      expect(unsupportedOption(service.returnOptions, { signature: 'required' }), service.code).toBe('options.signature');
      expect(unsupportedOption(service.returnOptions, { declared_value: '10.00' }), service.code).toBeNull();
      expect(unsupportedOption(service.returnOptions, { saturday_delivery: true })).toBe(unsupportedOption(service.options, { saturday_delivery: true }));
    }
  });

  it('divides a line value into its unit value exactly where it can', () => {
    expect(unitValue('30.00', 2)).toBe('15.00');
    expect(unitValue('10.00', 3)).toBe('3.333333');
    expect(unitValue('0.01', 8)).toBe('0.00125');
  });
});
