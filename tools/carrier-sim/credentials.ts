/**
 * The development credentials the shared simulator's UPS and USPS accept, in the formats their
 * documents give: `npm start` hands them to the adapters. They open nothing but the simulator.
 */
export const SIMULATOR_CREDENTIALS = {
  ups: {
    clientId: 'sim-ups-client-id',
    clientSecret: 'sim-ups-client-secret',
    /** `Shipper.ShipperNumber`: six characters. */
    accountNumber: 'A1B2C3',
  },
  usps: {
    clientId: 'sim-usps-client-id',
    clientSecret: 'sim-usps-client-secret',
    /** Customer Registration ID: digits, 2 to 18 characters. */
    crid: '56982563',
    /** Mailer IDs: 6 or 9 digits. */
    mid: '904128936',
    manifestMid: '904128937',
    /** The EPS account postage is paid from: digits. */
    accountNumber: '1000405525',
  },
} as const;
