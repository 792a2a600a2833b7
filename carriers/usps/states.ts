import label from './schemas/label.json' with { type: 'json' };

/**
 * The two-letter state codes USPS's labels document lists (states, DC, territories, APO/FPO/DPO), as
 * its `State` pattern writes them (`^(AA|AE|…)$`), read from the schema generated from it.
 */
function statesOf(pattern: string): readonly string[] {
  const codes = /^\^\(([A-Z|]+)\)\$$/.exec(pattern)?.[1].split('|');
  if (!codes || codes.length < 50) throw new Error(`USPS's State pattern is not a list of codes: ${pattern}`);
  return codes;
}

export const USPS_STATE_CODES: readonly string[] = statesOf(label.definitions.State.pattern);
