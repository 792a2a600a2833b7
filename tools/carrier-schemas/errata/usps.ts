import type { Erratum } from '../errata.js';

export const USPS_ERRATA: readonly Erratum[] = [];
