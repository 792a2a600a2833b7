/** SCAN forms: our manifest request as USPS's `SCANFormRequest`, and its vendor answer as our form. */
import type { Address } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { addressState, splitZip, uspsAddressProblems } from './mapping-address.js';
import type { ScanForm } from './schemas/index.js';

/** The request as USPS's document defines it (carriers/usps/schemas, generated). */
type UspsScanFormRequest = ScanForm.Request;

export interface UspsScanForm {
  manifestNumber: string;
  trackingNumbers: string[];
  /** The form's PDF, base64 (we ask for `PDF`). */
  pdfBase64: string;
}

/**
 * A form for labels entered at the sender's own Post Office: the entry facility is the sender's
 * ZIP Code with no destination entry (`NONE`), mailed today. USPS overwrites the labels' mailing
 * dates with today's when asked, so labels bought on earlier days go on the same form.
 */
export function buildUspsScanFormRequest(from: Address, trackingNumbers: readonly string[], mailingDate: string): UspsScanFormRequest {
  const problems = uspsAddressProblems(from, 'from');
  if (problems.length) throw new Error(problems.map((p) => `${p.path} ${p.message}`).join('; '));
  const zip = splitZip(from.postcode);
  const line2 = from.line2?.trim();
  return {
    imageInfo: { imageType: 'PDF', labelType: '8.5X11LABEL' },
    mailingDate,
    overwriteMailingDate: true,
    entryFacilityZIPCode: zip.ZIPCode,
    destinationEntryFacilityType: 'NONE',
    shipment: { trackingNumbers: [...trackingNumbers] },
    fromAddress: {
      firm: from.name.trim(),
      streetAddress: from.line1.trim(),
      ...(line2 ? { secondaryAddress: line2 } : {}),
      city: from.city.trim(),
      state: (addressState(from) as string).toUpperCase(),
      ...zip,
    },
  };
}

/** The vendor answer; undefined without a manifest number or a form image. */
export function parseUspsScanFormResponse(body: unknown): UspsScanForm | undefined {
  if (!isRecord(body)) return undefined;
  const manifestNumber = body.manifestNumber;
  const image = body.SCANFormImage;
  if (typeof manifestNumber !== 'string' || manifestNumber === '' || typeof image !== 'string' || image === '') return undefined;
  const trackingNumbers = Array.isArray(body.trackingNumbers) ? body.trackingNumbers.filter((t): t is string => typeof t === 'string') : [];
  return { manifestNumber, trackingNumbers, pdfBase64: image };
}
