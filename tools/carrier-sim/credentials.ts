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
    /** The phone a pickup is booked with when its request names none. */
    pickupPhone: '+1 555 0100',
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
    /** The pickup contact of accounts without a portal user. */
    pickupEmail: 'shipping@example.com',
  },
} as const;

/**
 * The environment that turns UPS and USPS on against a simulator at `simUrl` (its origin), in the
 * variables config/ reads: `npm start`, the test stack and the fleets use it. A carrier whose URL
 * the environment already names (`inherited`) is left as the operator set it.
 */
export function simulatorCarrierEnv(simUrl: string, inherited: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
  const root = simUrl.replace(/\/+$/, '');
  const { ups, usps } = SIMULATOR_CREDENTIALS;
  const env: Record<string, string> = {};
  if (!inherited.CARRIER_UPS_URL) {
    Object.assign(env, {
      CARRIER_UPS_URL: `${root}/ups`,
      CARRIER_UPS_CLIENT_ID: ups.clientId,
      CARRIER_UPS_CLIENT_SECRET: ups.clientSecret,
      CARRIER_UPS_ACCOUNT_NUMBER: ups.accountNumber,
      CARRIER_UPS_PICKUP_PHONE: ups.pickupPhone,
    });
  }
  if (!inherited.CARRIER_USPS_URL) {
    Object.assign(env, {
      CARRIER_USPS_URL: `${root}/usps`,
      CARRIER_USPS_CLIENT_ID: usps.clientId,
      CARRIER_USPS_CLIENT_SECRET: usps.clientSecret,
      CARRIER_USPS_CRID: usps.crid,
      CARRIER_USPS_MID: usps.mid,
      CARRIER_USPS_MANIFEST_MID: usps.manifestMid,
      CARRIER_USPS_ACCOUNT_NUMBER: usps.accountNumber,
      CARRIER_USPS_PICKUP_EMAIL: usps.pickupEmail,
      // The simulator keeps no quota unless a test gives it one: the client's own budget stays out of the way.
      CARRIER_USPS_CALLS_PER_HOUR: '1000000',
    });
  }
  return env;
}
