/**
 * The chaos run's routes: a domestic route per currency with the services its clients buy there, and
 * international routes from the same senders, whose services are found by quoting them
 * (tools/chaos/terms.ts). Senders and recipients abroad carry a phone and an e-mail, which some
 * carriers need across a border.
 */

export type ChaosCurrency = 'GBP' | 'USD';

const GB_SENDER = {
  name: 'Chaos Sender',
  company: 'Chaos Widgets Ltd',
  line1: '1 High Street',
  city: 'London',
  postcode: 'EC1A 1BB',
  country: 'GB',
  phone: '+44 20 7946 0000',
  email: 'ship@chaos.example',
};
const US_SENDER = {
  name: 'Chaos Sender',
  company: 'Chaos Widgets Inc',
  line1: '2311 York Rd',
  city: 'Timonium',
  state: 'MD',
  postcode: '21093',
  country: 'US',
  phone: '+1 410 555 0100',
  email: 'ship@chaos.example',
};

export interface Route {
  name: string;
  from: Record<string, string>;
  to: (name: string) => Record<string, string>;
}

export const GB_ROUTE: Route = {
  name: 'GB→GB',
  from: GB_SENDER,
  to: (name) => ({ name, line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' }),
};
export const US_ROUTE: Route = {
  name: 'US→US',
  from: US_SENDER,
  to: (name) => ({ name, line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' }),
};
export const GB_SERVICES = ['acme_ground', 'acme_express', 'swiftpost_standard', 'swiftpost_nextday'];
export const US_SERVICES = ['ups_ground', 'usps_ground_advantage', 'usps_priority_mail'];

/** Each currency's domestic route: its accounts' senders are there. */
export const DOMESTIC: Record<ChaosCurrency, Route> = { GBP: GB_ROUTE, USD: US_ROUTE };

/** Routes abroad from each currency's sender; which carriers take them is for their quotes to say. */
export const INTERNATIONAL_ROUTES: Record<ChaosCurrency, Route[]> = {
  GBP: [
    {
      name: 'GB→FR',
      from: GB_SENDER,
      to: (name) => ({ name, line1: '3 Rue Haute', city: 'Paris', postcode: '75001', country: 'FR', phone: '+33 1 23 45 67 89', email: 'colis@chaos.example' }),
    },
    {
      name: 'GB→US',
      from: GB_SENDER,
      to: (name) => ({ name, line1: '350 5th Ave', city: 'New York', state: 'NY', postcode: '10118', country: 'US', phone: '+1 212 555 0100', email: 'parcels@chaos.example' }),
    },
  ],
  USD: [
    {
      name: 'US→CA',
      from: US_SENDER,
      to: (name) => ({ name, line1: '290 Bremner Blvd', city: 'Toronto', state: 'ON', postcode: 'M5V 3L9', country: 'CA', phone: '+1 416 555 0100', email: 'parcels@chaos.example' }),
    },
  ],
};

/** The chaos parcels weigh 1 to 3 kg; a declaration's lines weigh at most 900 g together. */
export const parcelFor = (i: number) => ({ weight_g: 1_000 + (i % 5) * 500, length_mm: 300, width_mm: 200, height_mm: 100 });

/** A complete commercial declaration, as a careful merchant sends it: one or two lines, HS codes, an EORI. */
export function customsFor(i: number) {
  const lines = [
    { description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'PT', sku: `TS-${i}` },
    { description: 'Ceramic mug', quantity: 1, value: '12.50', weight_g: 450, hs_tariff_number: '691200', origin_country: 'GB', sku: `MG-${i}` },
  ];
  return {
    contents_type: 'merchandise',
    non_delivery: 'return',
    incoterm: 'DDU',
    signer: 'Chaos Sender',
    invoice_number: `INV-${i}`,
    tax_ids: [{ type: 'eori', number: 'GB123456789000', owner: 'sender' }],
    items: lines.slice(0, 1 + (i % 2)),
  };
}
