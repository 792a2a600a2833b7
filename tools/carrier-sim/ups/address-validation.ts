import type { AddressValidation } from '../../../carriers/ups/schemas/index.js';
import { simCheckAddress, type SimMatchedAddress } from '../address-rules.js';
import { UPS_ERROR } from './rating.js';

/**
 * The UPS simulator's Address Validation - Street Level (`AddressValidation.yaml`,
 * `POST /addressvalidation/v2/{requestoption}`): the `XAVRequest` is checked against the document's
 * schema first (`./index.ts`, code 264001), the request option (1 validation, 2 classification,
 * 3 both) and the candidate list size against their listed values. The answer is an `XAVResponse` with one of the three indicators,
 * the classification where it was asked for, and the candidates (the shared rules, `../address-rules.ts`).
 */

const CLASSIFICATION = {
  unclassified: { Code: '0', Description: 'UnClassified' },
  commercial: { Code: '1', Description: 'Commercial' },
  residential: { Code: '2', Description: 'Residential' },
} as const;

/** UPS covers the US and Puerto Rico at street level. */
const STREET_LEVEL = new Set(['US', 'PR']);

export function validateAddress(requestOption: string, query: URLSearchParams, body: unknown): [number, unknown] {
  if (!['1', '2', '3'].includes(requestOption)) return [400, UPS_ERROR('264002', 'Invalid request option.')];
  const size = query.get('maximumcandidatelistsize');
  if (size !== null && !(/^\d+$/.test(size) && Number(size) <= 50)) return [400, UPS_ERROR('264003', 'The maximum candidate list size must be 0 to 50.')];
  const regional = query.get('regionalrequestindicator');
  if (regional !== null && regional !== 'True' && regional !== 'False') return [400, UPS_ERROR('264004', 'The regional request indicator must be True or False.')];
  const a = (body as AddressValidation.Request).XAVRequest.AddressKeyFormat;
  if (!STREET_LEVEL.has(a.CountryCode)) return [400, UPS_ERROR('264005', 'Street level validation is available for US and Puerto Rico addresses only.')];
  const validation = requestOption !== '2';
  const classification = requestOption !== '1';
  const outcome = simCheckAddress({ lines: a.AddressLine ?? [], city: a.PoliticalDivision2, state: a.PoliticalDivision1, zip: a.PostcodePrimaryLow });
  const status = { ResponseStatus: { Code: '1', Description: 'Success' } };
  const classOf = (m: SimMatchedAddress) => (m.commercial ? CLASSIFICATION.commercial : CLASSIFICATION.residential);
  const candidate = (m: SimMatchedAddress) => ({
    ...(classification ? { AddressClassification: classOf(m) } : {}),
    AddressKeyFormat: {
      AddressLine: [m.line1, ...(m.line2 ? [m.line2] : [])],
      Region: `${m.city} ${m.state} ${m.zip}-${m.plus4}`,
      PoliticalDivision2: m.city,
      PoliticalDivision1: m.state,
      PostcodePrimaryLow: m.zip,
      PostcodeExtendedLow: m.plus4,
      CountryCode: a.CountryCode,
    },
  });
  const limit = size === null ? 15 : Number(size);
  if (outcome.kind === 'none') {
    return [200, { XAVResponse: { Response: status, NoCandidatesIndicator: '', ...(classification ? { AddressClassification: CLASSIFICATION.unclassified } : {}) } }];
  }
  if (outcome.kind === 'ambiguous') {
    const candidates = validation ? outcome.candidates.slice(0, limit).map(candidate) : [];
    return [200, { XAVResponse: { Response: status, AmbiguousAddressIndicator: '', ...(classification ? { AddressClassification: CLASSIFICATION.unclassified } : {}), ...(candidates.length ? { Candidate: candidates } : {}) } }];
  }
  return [
    200,
    {
      XAVResponse: {
        Response: status,
        ValidAddressIndicator: '',
        ...(classification ? { AddressClassification: classOf(outcome.address) } : {}),
        ...(validation && limit > 0 ? { Candidate: [candidate(outcome.address)] } : {}),
      },
    },
  ];
}
