import { describe, expect, it } from 'vitest';
import { buildDhlPickupRequest } from '../../../carriers/dhl-express/mapping-pickup.js';
import { buildDhlRateRequest } from '../../../carriers/dhl-express/mapping-rates.js';
import { buildDhlShipmentRequest } from '../../../carriers/dhl-express/mapping-shipment.js';
import { DHL_PICKUP_CANCEL_QUERY } from '../../../carriers/dhl-express/mapping-pickup.js';
import { DHL_TRACKING_QUERY, dhlReferenceQuery } from '../../../carriers/dhl-express/mapping-tracking.js';
import { DHL_EXPRESS_SCHEMAS } from '../../../carriers/dhl-express/schemas/index.js';
import { ACCOUNT, AT, CUSTOMS, DE_TO, FR_TO, GB_FROM, PARCEL, REFERENCE } from './payloads.js';

/**
 * The requests our mapping builds against the schemas generated from the MyDHL API document
 * (`npm run carrier-schemas`): each fits, and a broken one is caught, so a drift from the document
 * fails here before a server that is not ours refuses it.
 */

const shipment = DHL_EXPRESS_SCHEMAS.shipments;
const headers = { 'message-reference': '3f1b4a52-6c1e-4b8e-9a0e-2d7f5c9e1a01', 'x-version': '3.1.0' };

describe('DHL Express requests against the generated schemas of MyDHL API 3.1.1', () => {
  it('names its document and operations', () => {
    expect(shipment.source).toMatchObject({ document: 'dhl-express/mydhl-api-3.1.1.yaml', version: '3.1.1', method: 'POST', path: '/shipments', operationId: 'exp-api-shipments' });
  });

  it('a rate request fits POST /rates, dutiable, within the EU and domestic', () => {
    for (const to of [DE_TO, FR_TO, { ...DE_TO, country: 'GB', postcode: 'M3 3HN', city: 'Manchester' }]) {
      const body = buildDhlRateRequest({ from: GB_FROM, to, parcel: PARCEL, accountNumber: ACCOUNT, at: AT });
      expect(DHL_EXPRESS_SCHEMAS['rates-many'].requestProblems(body), to.country).toEqual([]);
    }
    const insured = buildDhlRateRequest({ from: GB_FROM, to: DE_TO, parcel: PARCEL, accountNumber: ACCOUNT, at: AT, insure: { value: '250.00', currency: 'GBP' } });
    expect(DHL_EXPRESS_SCHEMAS['rates-many'].requestProblems(insured)).toEqual([]);
  });

  it('a shipment request fits POST /shipments: GB to DE with customs and DDP, within the EU, domestic', () => {
    const base = { reference: REFERENCE, serviceCode: 'dhl_express_worldwide', from: GB_FROM, to: DE_TO, parcel: PARCEL, customs: CUSTOMS, accountNumber: ACCOUNT, at: AT };
    expect(shipment.requestProblems(buildDhlShipmentRequest(base))).toEqual([]);
    expect(shipment.requestProblems(buildDhlShipmentRequest({ ...base, options: { declared_value: '250.00' }, currency: 'GBP' }))).toEqual([]);
    expect(shipment.requestProblems(buildDhlShipmentRequest({ ...base, from: { ...GB_FROM, country: 'DE' }, to: FR_TO }))).toEqual([]);
    expect(shipment.requestProblems(buildDhlShipmentRequest({ ...base, serviceCode: 'dhl_express_domestic', to: { ...GB_FROM, name: 'Bob' }, customs: undefined }))).toEqual([]);
    expect(shipment.parameterProblems({ header: headers })).toEqual([]);
  });

  it('fails when the mapping breaks the schema: a value outside its list, a property the document does not define, a missing field', () => {
    const body = buildDhlShipmentRequest({ reference: REFERENCE, serviceCode: 'dhl_express_worldwide', from: GB_FROM, to: DE_TO, parcel: PARCEL, customs: CUSTOMS, accountNumber: ACCOUNT, at: AT });
    const badIncoterm = { ...body, content: { ...body.content, incoterm: 'FREE' } };
    expect(shipment.requestProblems(badIncoterm).join('\n')).toMatch(/\/content\/incoterm/);
    const undefinedField = { ...body, content: { ...body.content, packages: [{ ...body.content.packages[0], weightUnit: 'kg' }] } };
    expect(shipment.requestProblems(undefinedField).join('\n')).toMatch(/weightUnit/);
    const { phone: _, ...noPhone } = body.customerDetails.receiverDetails.contactInformation;
    const missing = { ...body, customerDetails: { ...body.customerDetails, receiverDetails: { ...body.customerDetails.receiverDetails, contactInformation: noPhone } } };
    expect(shipment.requestProblems(missing).join('\n')).toMatch(/phone/);
  });

  it('a pickup request fits POST /pickups, and the cancel its parameters', () => {
    const request = {
      reference: 'pck_01j9zq0example0000000000',
      address: GB_FROM,
      window: { start: '2026-03-02T12:00:00.000Z', end: '2026-03-02T17:00:00.000Z' },
      parcels: { count: 2, totalWeightG: 3_000, serviceCodes: ['dhl_express_worldwide'], destinationCountries: ['DE'] },
      instructions: 'Ring at reception',
    };
    expect(DHL_EXPRESS_SCHEMAS.pickups.requestProblems(buildDhlPickupRequest(request, ACCOUNT))).toEqual([]);
    const cancel = DHL_EXPRESS_SCHEMAS['pickups-cancel'];
    expect(cancel.parameterProblems({ path: { dispatchConfirmationNumber: 'PRG260302000123' }, query: { ...DHL_PICKUP_CANCEL_QUERY }, header: headers })).toEqual([]);
    expect(cancel.parameterProblems({ path: { dispatchConfirmationNumber: 'PRG260302000123' }, query: {}, header: headers }).length).toBeGreaterThan(0);
  });

  it('the tracking queries fit their operations: one waybill, and a lookup by our reference', () => {
    expect(DHL_EXPRESS_SCHEMAS['shipments-tracking'].parameterProblems({ path: { shipmentTrackingNumber: '1103733901' }, query: { ...DHL_TRACKING_QUERY }, header: headers })).toEqual([]);
    expect(DHL_EXPRESS_SCHEMAS.tracking.parameterProblems({ query: dhlReferenceQuery(REFERENCE, ACCOUNT, AT), header: headers })).toEqual([]);
    expect(DHL_EXPRESS_SCHEMAS.tracking.parameterProblems({ query: { ...dhlReferenceQuery(REFERENCE, ACCOUNT, AT), trackingView: 'everything' }, header: headers }).length).toBeGreaterThan(0);
  });
});
