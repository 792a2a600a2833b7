import type { Transport } from './forms.js';
import type { Address, AddressCreateParams, AddressUpdateParams, AddressVerification, AddressVerifyParams, DeletedAddress, PageParams } from './types.js';

const enc = encodeURIComponent;

/** The address book (saved addresses, with their company, phone and e-mail), and address checks with the carrier. */
export function addressResource(t: Transport) {
  return {
    /** Saves an address; saving the same one again returns the saved record. */
    create: async (body: AddressCreateParams, options: { idempotencyKey?: string } = {}): Promise<Address> =>
      (await t.request<Address>('POST', '/addresses', { body, idempotencyKey: options.idempotencyKey })).body,
    retrieve: async (id: string): Promise<Address> => (await t.request<Address>('GET', `/addresses/${enc(id)}`)).body,
    update: async (id: string, body: AddressUpdateParams): Promise<Address> => (await t.request<Address>('PATCH', `/addresses/${enc(id)}`, { body })).body,
    delete: async (id: string): Promise<DeletedAddress> => (await t.request<DeletedAddress>('DELETE', `/addresses/${enc(id)}`)).body,
    list: (params: PageParams = {}): AsyncIterable<Address> => t.paginate<Address>('/addresses', params),
    /**
     * Checks a US or Puerto Rico address with the carrier (USPS, or UPS): `verified`, the standardised
     * address with its ZIP+4, `residential`. Other countries: 422 `verification_not_available`.
     */
    verify: async (body: AddressVerifyParams): Promise<AddressVerification> => (await t.request<AddressVerification>('POST', '/addresses/verify', { body })).body,
  };
}
