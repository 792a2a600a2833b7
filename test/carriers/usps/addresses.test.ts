// The Addresses API (addresses.yaml): the query built from our address, field for field; answers
// written from the document's schemas and its own 404 examples, parsed into our check; then the
// client against the simulator, every request and answer held to our schemas of the document.
import { afterEach, describe, expect, it } from 'vitest';
import { CarrierError } from '../../../carriers/types.js';
import { buildUspsAddressQuery, parseUspsAddressNotFound, parseUspsAddressResponse, uspsAddressPath } from '../../../carriers/usps/mapping-address-check.js';
import { createUspsClient } from '../../../carriers/usps/client.js';
import type { Address } from '../../../domain/index.js';
import { startUspsSimulator } from '../../../tools/carrier-sim/usps/index.js';
import { uspsAnswerProblems, uspsQueryProblems } from './schema-check.js';

const HOME: Address = { name: 'Nick Fury', line1: '2700 S Jefferson Avenue', line2: 'Apt 4', city: 'St. Louis', state: 'MO', postcode: '63104', country: 'US' };
const PR_HOME: Address = { name: 'Ana Ruiz', line1: '1 Calle Luna', city: 'San Juan', postcode: '00901-1234', country: 'PR' };

/** An `AddressResponse` as the document describes it: standardized, ZIP+4, DPV confirmed, not a business. */
const STANDARDIZED = {
  address: {
    streetAddress: '2700 S JEFFERSON AVE',
    streetAddressAbbreviation: '2700 S JEFFERSON AVE',
    secondaryAddress: 'APT 4',
    city: 'SAINT LOUIS',
    cityAbbreviation: 'ST LOUIS',
    state: 'MO',
    ZIPCode: '63104',
    ZIPPlus4: '2351',
    urbanization: '',
  },
  additionalInfo: { deliveryPoint: '04', carrierRoute: 'C012', DPVConfirmation: 'Y', DPVCMRA: 'N', business: 'N', centralDeliveryPoint: 'N', vacant: 'N' },
  corrections: [],
  matches: [{ code: '31', text: 'Single Response - exact match' }],
  warnings: [],
};

/** The document's 404 examples. */
const NO_MATCH = { apiVersion: 'v3', error: { code: '404', message: 'There is no match for the address requested.', errors: [] } };
const MULTIPLE = { apiVersion: 'v3', error: { code: '404', message: 'More than one address was found matching the requested address.', errors: [] } };

describe('USPS address query, from the document', () => {
  it('sends the street, the unit, the city, the state and the ZIP Code, nothing else', () => {
    const query = buildUspsAddressQuery(HOME);
    expect(query).toEqual({ streetAddress: '2700 S Jefferson Avenue', secondaryAddress: 'Apt 4', city: 'St. Louis', state: 'MO', ZIPCode: '63104' });
    expect(uspsQueryProblems('address', query)).toEqual([]);
    expect(uspsAddressPath(query)).toBe('/addresses/v3/address?streetAddress=2700+S+Jefferson+Avenue&secondaryAddress=Apt+4&city=St.+Louis&state=MO&ZIPCode=63104');
  });

  it('sends Puerto Rico as the state PR, and a ZIP+4 split in two', () => {
    const query = buildUspsAddressQuery(PR_HOME);
    expect(query).toEqual({ streetAddress: '1 Calle Luna', city: 'San Juan', state: 'PR', ZIPCode: '00901', ZIPPlus4: '1234' });
    expect(uspsQueryProblems('address', query)).toEqual([]);
  });

  it('leaves out a postcode that is no ZIP Code, and refuses what USPS cannot look up before any call', () => {
    expect(buildUspsAddressQuery({ ...HOME, postcode: 'unknown' })).not.toHaveProperty('ZIPCode');
    expect(() => buildUspsAddressQuery({ ...HOME, country: 'GB', state: undefined })).toThrow(CarrierError);
    expect(() => buildUspsAddressQuery({ ...HOME, state: 'UM' })).toThrow(/not a USPS state code/);
  });
});

describe('USPS address answers, into our check', () => {
  it('a DPV-confirmed address: verified, standardized, ZIP+4, residential (not a business)', () => {
    expect(uspsAnswerProblems('address', 200, STANDARDIZED)).toEqual([]);
    expect(parseUspsAddressResponse(STANDARDIZED, HOME)).toEqual({
      verified: true,
      address: { name: 'Nick Fury', line1: '2700 S JEFFERSON AVE', line2: 'APT 4', city: 'SAINT LOUIS', state: 'MO', postcode: '63104-2351', country: 'US' },
      residential: true,
      messages: [],
    });
  });

  it('a business is commercial; a CMRA and a vacant address say so', () => {
    const body = { ...STANDARDIZED, additionalInfo: { ...STANDARDIZED.additionalInfo, business: 'Y', DPVCMRA: 'Y', vacant: 'Y' } };
    const check = parseUspsAddressResponse(body, HOME);
    expect(check?.residential).toBe(false);
    expect(check?.verified).toBe(true);
    expect(check?.messages.map((m) => m.code)).toEqual(['commercial_mail_receiving_agency', 'vacant']);
  });

  it('DPV D (unit missing) is verified with the correction 32 words; S is verified with a message; N is not verified', () => {
    const missing = {
      ...STANDARDIZED,
      address: { ...STANDARDIZED.address, secondaryAddress: undefined, ZIPPlus4: '2300' },
      additionalInfo: { ...STANDARDIZED.additionalInfo, DPVConfirmation: 'D' },
      corrections: [{ code: '32', text: 'Default address: The address you entered was found but more information is needed (such as an apartment, suite, or box number) to match to a specific address.' }],
    };
    const d = parseUspsAddressResponse(missing, { ...HOME, line2: undefined });
    expect(d).toMatchObject({ verified: true, address: { postcode: '63104-2300' }, messages: [{ code: 'secondary_missing', message: missing.corrections[0].text }] });
    expect(d?.address).not.toHaveProperty('line2');
    const s = parseUspsAddressResponse({ ...STANDARDIZED, additionalInfo: { ...STANDARDIZED.additionalInfo, DPVConfirmation: 'S' } }, HOME);
    expect(s).toMatchObject({ verified: true, messages: [{ code: 'secondary_not_confirmed' }] });
    const n = parseUspsAddressResponse({ ...STANDARDIZED, additionalInfo: { ...STANDARDIZED.additionalInfo, DPVConfirmation: 'N' } }, HOME);
    expect(n).toMatchObject({ verified: false, messages: [{ code: 'address_not_found' }] });
  });

  it('correction 22 (several addresses, no default) is not verified', () => {
    const body = { ...STANDARDIZED, corrections: [{ code: '22', text: 'Multiple addresses were found for the information you entered, and no default exists.' }] };
    expect(parseUspsAddressResponse(body, HOME)).toMatchObject({ verified: false, messages: [{ code: 'multiple_matches' }] });
  });

  it('without a DPV flag, a ZIP+4 is what confirms the address; an unknown business flag is null', () => {
    const body = { address: { streetAddress: '1 MAIN ST', city: 'SPRINGFIELD', state: 'IL', ZIPCode: '62701', ZIPPlus4: null } };
    expect(parseUspsAddressResponse(body, HOME)).toMatchObject({ verified: false, residential: null, address: { postcode: '62701' } });
  });

  it('the document\'s 404 examples: no match and more than one address, in USPS\'s words', () => {
    expect(uspsAnswerProblems('address', 404, NO_MATCH)).toEqual([]);
    expect(parseUspsAddressNotFound(NO_MATCH, HOME)).toEqual({
      verified: false,
      address: HOME,
      residential: null,
      messages: [{ code: 'address_not_found', message: 'There is no match for the address requested.' }],
    });
    expect(parseUspsAddressNotFound(MULTIPLE, HOME)?.messages).toEqual([{ code: 'multiple_matches', message: MULTIPLE.error.message }]);
  });

  it('an answer that is not the document\'s is not read as one', () => {
    expect(parseUspsAddressResponse({ ...STANDARDIZED, extra: 1 }, HOME)).toBeUndefined();
    expect(parseUspsAddressResponse({ matches: [] }, HOME)).toBeUndefined();
    expect(parseUspsAddressNotFound('Not Found', HOME)).toBeUndefined();
  });
});

describe('USPS client address checks against the simulator', () => {
  const closers: Array<() => Promise<void>> = [];
  const problems: string[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    expect(problems.splice(0)).toEqual([]);
  });

  async function harness() {
    const started = await startUspsSimulator({
      clientId: 'c',
      clientSecret: 's',
    });
    closers.push(async () => {
      problems.push(...started.simulator.answerProblems);
      await started.close();
    });
    const client = createUspsClient({ url: started.url, clientId: 'c', clientSecret: 's', crid: '12345678', mid: '123456', manifestMid: '123456', accountNumber: '1000000000', timeoutMs: 2_000 });
    return { client, sim: started.simulator };
  }

  it('standardizes, fills the ZIP+4 and says residential or commercial', async () => {
    const { client, sim } = await harness();
    const home = await client.verifyAddress({ ...HOME, line2: undefined });
    expect(home).toMatchObject({ verified: true, residential: true, address: { line1: '2700 S JEFFERSON AVE', city: 'ST LOUIS', state: 'MO', country: 'US' }, messages: [] });
    expect(home.address.postcode).toMatch(/^63104-\d{4}$/);
    const office = await client.verifyAddress({ ...HOME, line2: 'Suite 150' });
    expect(office).toMatchObject({ verified: true, residential: false, address: { line2: 'STE 150' } });
    expect(sim.requestProblems).toEqual([]);
  });

  it('answers no match for UNDELIVERABLE or an unknown ZIP Code, and several for a street without a number', async () => {
    const { client } = await harness();
    expect(await client.verifyAddress({ ...HOME, line1: '1 Undeliverable Way' })).toMatchObject({ verified: false, messages: [{ code: 'address_not_found' }] });
    expect(await client.verifyAddress({ ...HOME, postcode: '00123' })).toMatchObject({ verified: false, messages: [{ code: 'address_not_found' }] });
    expect(await client.verifyAddress({ ...HOME, line1: 'Jefferson Ave' })).toMatchObject({ verified: false, messages: [{ code: 'multiple_matches' }] });
  });

  it('a fault is a CarrierError to retry, not an answer', async () => {
    const { client, sim } = await harness();
    sim.inject('address', { kind: 'error', status: 503 });
    const error = await client.verifyAddress(HOME).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CarrierError);
    expect((error as CarrierError).kind).toBe('retryable');
  });
});
