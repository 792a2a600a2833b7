import type { Address } from '../../domain/index.js';
import type { AddressVerification } from '../address-verification.js';
import { buildUspsAddressQuery, parseUspsAddressNotFound, parseUspsAddressResponse, uspsAddressPath } from './mapping-address-check.js';
import type { UspsCallKit } from './client-calls.js';

/** The USPS client's address check, on the client's own token and error handling. */
export interface UspsAddressCalls {
  /** Standardizes a US or Puerto Rico address: a no-match (404) is an answer, every other failure a CarrierError. */
  verifyAddress(address: Address): Promise<AddressVerification>;
}

export function uspsAddressCalls(kit: Pick<UspsCallKit, 'authorized' | 'fail' | 'unreadable'>): UspsAddressCalls {
  return {
    async verifyAddress(address) {
      const path = uspsAddressPath(buildUspsAddressQuery(address));
      const answer = await kit.authorized({ method: 'GET', path, write: false });
      if (answer.status === 200) return parseUspsAddressResponse(answer.body, address) ?? kit.unreadable('address', false, answer.status);
      if (answer.status === 404) return parseUspsAddressNotFound(answer.body, address) ?? kit.fail(answer);
      return kit.fail(answer);
    },
  };
}
