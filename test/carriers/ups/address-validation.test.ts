// Address Validation - Street Level (AddressValidation.yaml): the XAVRequest built from our address,
// field for field; XAVResponses written from the document's schemas parsed into our check (valid,
// ambiguous with candidates, no candidates, classifications, alerts); then the client against the
// simulator, every answer held to our schema of the document.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildUpsAddressValidationRequest, parseUpsAddressValidationResponse } from '../../../carriers/ups/mapping-address-check.js';
import { createUpsClient } from '../../../carriers/ups/client.js';
import { CarrierError } from '../../../carriers/types.js';
import type { Address } from '../../../domain/index.js';
import { startUpsSimulator } from '../../../tools/carrier-sim/ups/index.js';
import { upsAnswerProblems, upsRequestProblems } from './schema-problems.js';

const OFFICE: Address = { name: 'Ritz Camera', line1: '26601 Aliso Creek Road', line2: 'Ste D', city: 'Aliso Viejo', state: 'CA', postcode: '92656', country: 'US' };
const PR_HOME: Address = { name: 'Ana Ruiz', line1: '1 Calle Luna', city: 'San Juan', postcode: '00901-1234', country: 'PR' };

const status = { ResponseStatus: { Code: '1', Description: 'Success' }, TransactionReference: { CustomerContext: 'check' } };
const candidate = (line: string, plus4: string, code?: '0' | '1' | '2') => ({
  ...(code ? { AddressClassification: { Code: code, Description: code === '2' ? 'Residential' : code === '1' ? 'Commercial' : 'UnClassified' } } : {}),
  AddressKeyFormat: {
    AddressLine: [line, 'STE D'],
    Region: `ALISO VIEJO CA 92656-${plus4}`,
    PoliticalDivision2: 'ALISO VIEJO',
    PoliticalDivision1: 'CA',
    PostcodePrimaryLow: '92656',
    PostcodeExtendedLow: plus4,
    CountryCode: 'US',
  },
});
const VALID = { XAVResponse: { Response: status, ValidAddressIndicator: '', AddressClassification: { Code: '1', Description: 'Commercial' }, Candidate: [candidate('26601 ALISO CREEK RD', '1521', '1')] } };
const AMBIGUOUS = {
  XAVResponse: {
    Response: status,
    AmbiguousAddressIndicator: '',
    AddressClassification: { Code: '0', Description: 'UnClassified' },
    Candidate: ['26601', '26611', '26621', '26631'].map((n, i) => candidate(`${n} ALISO CREEK RD`, `152${i}`)),
  },
};
const NONE = { XAVResponse: { Response: status, NoCandidatesIndicator: '', AddressClassification: { Code: '0', Description: 'UnClassified' } } };

describe('UPS address validation request, from the document', () => {
  it('asks for validation and classification (option 3) with the lines, city, state, ZIP Code and country', () => {
    const request = buildUpsAddressValidationRequest(OFFICE);
    expect(request.path).toBe('/addressvalidation/v2/3');
    expect(request.query).toEqual({ maximumcandidatelistsize: '5' });
    expect(request.body).toEqual({
      XAVRequest: {
        AddressKeyFormat: {
          AddressLine: ['26601 Aliso Creek Road', 'Ste D'],
          PoliticalDivision2: 'Aliso Viejo',
          PoliticalDivision1: 'CA',
          PostcodePrimaryLow: '92656',
          CountryCode: 'US',
        },
      },
    });
    expect(upsRequestProblems('address-validation', request.body)).toEqual([]);
  });

  it('sends Puerto Rico as its own country and state, with the ZIP+4 as the extended code', () => {
    const { body } = buildUpsAddressValidationRequest(PR_HOME);
    expect(body.XAVRequest.AddressKeyFormat).toEqual({
      AddressLine: ['1 Calle Luna'],
      PoliticalDivision2: 'San Juan',
      PoliticalDivision1: 'PR',
      PostcodePrimaryLow: '00901',
      PostcodeExtendedLow: '1234',
      CountryCode: 'PR',
    });
    expect(upsRequestProblems('address-validation', body)).toEqual([]);
  });

  it('refuses before any call what UPS would not take whole, never cutting it', () => {
    expect(() => buildUpsAddressValidationRequest({ ...OFFICE, country: 'GB', state: undefined })).toThrow(CarrierError);
    expect(() => buildUpsAddressValidationRequest({ ...OFFICE, city: 'X'.repeat(31) })).toThrow(/30 characters/);
  });
});

describe('UPS address validation answers, into our check', () => {
  it('a valid address: its candidate standardized with the ZIP+4, commercial by the candidate\'s classification', () => {
    expect(upsAnswerProblems('address-validation', 200, VALID)).toEqual([]);
    expect(parseUpsAddressValidationResponse(VALID, OFFICE)).toEqual({
      verified: true,
      address: { name: 'Ritz Camera', line1: '26601 ALISO CREEK RD', line2: 'STE D', city: 'ALISO VIEJO', state: 'CA', postcode: '92656-1521', country: 'US' },
      residential: false,
      messages: [],
    });
  });

  it('residential is 2, unclassified (0) is unknown; the input\'s classification stands in for a candidate without one', () => {
    const residential = { XAVResponse: { ...VALID.XAVResponse, Candidate: [candidate('1 MAIN ST', '0001', '2')] } };
    expect(parseUpsAddressValidationResponse(residential, OFFICE)?.residential).toBe(true);
    const unclassified = { XAVResponse: { ...VALID.XAVResponse, AddressClassification: { Code: '0', Description: 'UnClassified' }, Candidate: [candidate('1 MAIN ST', '0001')] } };
    expect(parseUpsAddressValidationResponse(unclassified, OFFICE)?.residential).toBeNull();
    const inputOnly = { XAVResponse: { ...VALID.XAVResponse, AddressClassification: { Code: '2', Description: 'Residential' }, Candidate: [candidate('1 MAIN ST', '0001')] } };
    expect(parseUpsAddressValidationResponse(inputOnly, OFFICE)?.residential).toBe(true);
  });

  it('ambiguous: not verified, the address as sent, the first candidates named', () => {
    expect(upsAnswerProblems('address-validation', 200, AMBIGUOUS)).toEqual([]);
    expect(parseUpsAddressValidationResponse(AMBIGUOUS, OFFICE)).toEqual({
      verified: false,
      address: OFFICE,
      residential: null,
      messages: [
        {
          code: 'multiple_matches',
          message:
            'UPS found 4 possible addresses: 26601 ALISO CREEK RD, STE D, ALISO VIEJO, CA 92656-1520; 26611 ALISO CREEK RD, STE D, ALISO VIEJO, CA 92656-1521; 26621 ALISO CREEK RD, STE D, ALISO VIEJO, CA 92656-1522, and 1 more.',
        },
      ],
    });
  });

  it('no candidates: not verified; UPS\'s alerts are passed on as notices', () => {
    const withAlert = { XAVResponse: { ...NONE.XAVResponse, Response: { ...status, Alert: [{ Code: '120801', Description: 'Street level validation is limited in this environment.' }] } } };
    expect(upsAnswerProblems('address-validation', 200, withAlert)).toEqual([]);
    expect(parseUpsAddressValidationResponse(withAlert, OFFICE)).toEqual({
      verified: false,
      address: OFFICE,
      residential: null,
      messages: [
        { code: 'address_not_found', message: 'UPS found no address that matches this one.' },
        { code: 'carrier_notice', message: 'Street level validation is limited in this environment.' },
      ],
    });
  });

  it('an answer that is not the document\'s is not read as one', () => {
    expect(parseUpsAddressValidationResponse({ XAVResponse: { ValidAddressIndicator: '' } }, OFFICE)).toBeUndefined();
    expect(parseUpsAddressValidationResponse({ XAVResponse: { Response: status, ValidAddressIndicator: '' } }, OFFICE)).toBeUndefined();
  });
});

describe('UPS client address validation against the simulator', () => {
  let server: Awaited<ReturnType<typeof startUpsSimulator>>;
  beforeAll(async () => {
    server = await startUpsSimulator({
      accountNumber: 'A1B2C3',
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.sim.faults.length = 0;
  });
  const client = () => createUpsClient({ url: server.url, clientId: 'sim-client-id', clientSecret: 'sim-client-secret', accountNumber: 'A1B2C3', timeoutMs: 2_000 });

  it('standardizes, fills the ZIP+4 and classifies', async () => {
    const office = await client().validateAddress(OFFICE);
    expect(office).toMatchObject({ verified: true, residential: false, address: { line1: '26601 ALISO CREEK RD', line2: 'STE D', city: 'ALISO VIEJO', state: 'CA' } });
    expect(office.address.postcode).toMatch(/^92656-\d{4}$/);
    const home = await client().validateAddress({ ...OFFICE, line2: undefined });
    expect(home).toMatchObject({ verified: true, residential: true });
    expect(server.sim.violations).toEqual([]);
  });

  it('answers no candidates for UNDELIVERABLE or an unknown ZIP Code, and candidates for a street without a number', async () => {
    expect(await client().validateAddress({ ...OFFICE, line1: '5 undeliverable lane' })).toMatchObject({ verified: false, messages: [{ code: 'address_not_found' }] });
    expect(await client().validateAddress({ ...OFFICE, postcode: '00042' })).toMatchObject({ verified: false, messages: [{ code: 'address_not_found' }] });
    const ambiguous = await client().validateAddress({ ...OFFICE, line1: 'Aliso Creek Road' });
    expect(ambiguous).toMatchObject({ verified: false, messages: [{ code: 'multiple_matches' }] });
    expect(ambiguous.messages[0].message).toContain('100 ALISO CREEK RD');
    expect(server.sim.violations).toEqual([]);
  });

  it('a fault is a CarrierError to retry, not an answer', async () => {
    server.sim.faults.push({ operation: 'address', kind: 'error', status: 503 });
    const error = await client().validateAddress(OFFICE).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CarrierError);
    expect((error as CarrierError).kind).toBe('retryable');
  });
});
