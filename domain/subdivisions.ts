/**
 * The ISO 3166-2 subdivision codes, without the country prefix, of the two countries whose addresses
 * must name one (contract: Resources → Address): carriers need the state or province there.
 */

/** The 50 states, the District of Columbia, the inhabited territories and the outlying islands, and the military "states". */
export const US_SUBDIVISIONS: ReadonlySet<string> = new Set([
  'AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'FL', 'GA',
  'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY', 'LA', 'ME', 'MD',
  'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ',
  'NM', 'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC',
  'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY',
  'DC',
  // Territories: American Samoa, Guam, Northern Mariana Islands, Puerto Rico, US Virgin Islands, Minor Outlying Islands.
  'AS', 'GU', 'MP', 'PR', 'VI', 'UM',
  // Armed Forces Americas, Europe, Pacific: the postal "states" of military mail.
  'AA', 'AE', 'AP',
]);

/** The 10 provinces and 3 territories. */
export const CA_SUBDIVISIONS: ReadonlySet<string> = new Set([
  'AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'ON', 'PE', 'QC', 'SK',
  'NT', 'NU', 'YT',
]);

/** Countries whose addresses need a state, with the codes each accepts. */
export const STATE_REQUIRED: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['US', US_SUBDIVISIONS],
  ['CA', CA_SUBDIVISIONS],
]);

/** Elsewhere any subdivision code's shape: 1 to 3 letters or digits (after trimming and upper-casing). */
export const SUBDIVISION_CODE = /^[A-Z0-9]{1,3}$/;
