import type { Address } from '../../domain/index.js';
import { buildUspsPickupRequest, parseUspsPickupConfirmation, type UspsPickupInput } from './mapping-pickup.js';
import { buildUspsScanFormRequest, parseUspsScanFormResponse, type UspsScanForm } from './mapping-scan-forms.js';
import type { UspsCallKit } from './client-calls.js';

/** The USPS client's SCAN form and carrier pickup calls, on the client's own token and error handling. */
export interface UspsFormCalls {
  /** A SCAN form (PS Form 5630) of these labels, mailed today from `from`. */
  scanForm(from: Address, trackingNumbers: readonly string[]): Promise<UspsScanForm>;
  /** Schedules a carrier pickup; its confirmation number. */
  schedulePickup(input: UspsPickupInput): Promise<string>;
  /** Cancels a pickup: its ETag first (USPS requires `If-Match`), then the cancellation. */
  cancelPickup(confirmationNumber: string): Promise<void>;
}

export function uspsFormCalls(kit: UspsCallKit): UspsFormCalls {
  const { authorized, fail, unreadable } = kit;
  return {
    async scanForm(from, trackingNumbers) {
      kit.refuseBadAddresses(from, from);
      const body = buildUspsScanFormRequest(from, trackingNumbers, kit.mailingDate(from));
      // The vendor media type answers one JSON object with the form in base64, not multipart.
      const answer = await authorized({ method: 'POST', path: '/scan-forms/v3/scan-form', headers: { accept: 'application/vnd.usps.labels+json' }, body, write: true });
      if (answer.status !== 200) fail(answer);
      return parseUspsScanFormResponse(answer.body) ?? unreadable('SCAN form', true, answer.status);
    },

    async schedulePickup(input) {
      const answer = await authorized({ method: 'POST', path: '/pickup/v3/carrier-pickup', body: buildUspsPickupRequest(input), write: true });
      if (answer.status !== 200) fail(answer);
      return parseUspsPickupConfirmation(answer.body) ?? unreadable('carrier pickup', true, answer.status);
    },

    async cancelPickup(confirmationNumber) {
      const path = `/pickup/v3/carrier-pickup/${encodeURIComponent(confirmationNumber)}`;
      const read = await authorized({ method: 'GET', path, write: false });
      if (read.status !== 200) fail(read);
      const etag = read.headers.etag;
      if (typeof etag !== 'string' || etag === '') return unreadable('carrier pickup (no ETag)', false, read.status);
      const answer = await authorized({ method: 'DELETE', path, headers: { 'if-match': etag }, write: true });
      if (answer.status !== 200) fail(answer);
    },
  };
}
