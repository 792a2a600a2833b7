import type { Erratum } from '../errata.js';

export const UPS_ERRATA: readonly Erratum[] = [];
