/**
 * A small Code 128 decoder written from the symbology specification (ISO/IEC 15417), independent
 * of bwip-js, so the tests can check that the bars drawn on a label scan back as the tracking
 * number. It takes element widths in modules: bar, space, bar, …, ending with the stop's bar.
 */

/**
 * Symbol character patterns by value: six element widths (bar, space, bar, space, bar, space)
 * summing to 11 modules; 103–105 are the start characters A/B/C and 106 the stop, whose seventh
 * element is the 2-module termination bar.
 */
export const PATTERNS: readonly string[] = [
  '212222', '222122', '222221', '121223', '121322', '131222', '122213', '122312', '132212', '221213',
  '221312', '231212', '112232', '122132', '122231', '113222', '123122', '123221', '223211', '221132',
  '221231', '213212', '223112', '312131', '311222', '321122', '321221', '312212', '322112', '322211',
  '212123', '212321', '232121', '111323', '131123', '131321', '112313', '132113', '132311', '211313',
  '231113', '231311', '112133', '112331', '132131', '113123', '113321', '133121', '313121', '211331',
  '231131', '213113', '213311', '213131', '311123', '311321', '331121', '312113', '312311', '332111',
  '314111', '221411', '431111', '111224', '111422', '121124', '121421', '141122', '141221', '112214',
  '112412', '122114', '122411', '142112', '142211', '241211', '221114', '413111', '241112', '134111',
  '111242', '121142', '121241', '114212', '124112', '124211', '411212', '421112', '421211', '212141',
  '214121', '412121', '111143', '111341', '131141', '114113', '114311', '411113', '411311', '113141',
  '114131', '311141', '411131', '211412', '211214', '211232', '2331112',
];

export const START_A = 103;
export const START_B = 104;
export const START_C = 105;
export const STOP = 106;

// Function characters shared by the code sets (values as in the specification's table).
const FNC3 = 96;
const FNC2 = 97;
const SHIFT = 98;
const CODE_C = 99;
const FNC1 = 102;

type CodeSet = 'A' | 'B' | 'C';

const VALUE_BY_PATTERN = new Map(PATTERNS.map((p, value) => [p, value]));

/** Splits element widths into symbol character values, checking the stop pattern. */
export function symbolValues(widths: readonly number[]): number[] {
  if ((widths.length - 7) % 6 !== 0 || widths.length < 6 * 3 + 7) {
    throw new Error(`${widths.length} elements cannot be start + data + check + stop`);
  }
  const values: number[] = [];
  for (let i = 0; i < widths.length - 7; i += 6) {
    const pattern = widths.slice(i, i + 6).join('');
    const value = VALUE_BY_PATTERN.get(pattern);
    if (value === undefined || value === STOP) throw new Error(`no symbol character has pattern ${pattern}`);
    values.push(value);
  }
  const stop = widths.slice(-7).join('');
  if (stop !== PATTERNS[STOP]) throw new Error(`expected the stop pattern, found ${stop}`);
  return values;
}

/** Decodes element widths (in modules) to the encoded text. */
export function decodeCode128(widths: readonly number[]): string {
  const values = symbolValues(widths);
  const [start, ...rest] = values;
  const check = rest.pop();
  const data = rest;
  if (start === undefined || check === undefined) throw new Error('symbol too short');

  // Modulo 103 check: start value plus each data value weighted by its position (from 1).
  const sum = data.reduce((acc, v, i) => acc + v * (i + 1), start);
  if (sum % 103 !== check) throw new Error(`check character ${check} does not match ${sum % 103}`);

  let set: CodeSet;
  if (start === START_A) set = 'A';
  else if (start === START_B) set = 'B';
  else if (start === START_C) set = 'C';
  else throw new Error(`symbol starts with ${start}, not a start character`);

  let out = '';
  let shifted = false;
  for (const value of data) {
    if (value >= START_A) throw new Error(`start character ${value} inside the data`);
    // A SHIFT makes the next character alone read from the other of sets A and B.
    const current: CodeSet = shifted ? (set === 'A' ? 'B' : 'A') : set;
    shifted = false;
    if (current === 'C') {
      if (value < 100) out += String(value).padStart(2, '0');
      else if (value === 100) set = 'B';
      else if (value === 101) set = 'A';
      else throw new Error('FNC1 is not used in tracking numbers');
      continue;
    }
    if (value < 96) {
      out += String.fromCharCode(characterCode(current, value));
      continue;
    }
    switch (value) {
      case SHIFT:
        shifted = true;
        break;
      case CODE_C:
        set = 'C';
        break;
      // In set A, 100 switches to B and 101 is FNC4; in set B, 100 is FNC4 and 101 switches to A.
      case 100:
        if (current === 'A') set = 'B';
        else throw new Error('FNC4 (extended ASCII) is not used in tracking numbers');
        break;
      case 101:
        if (current === 'B') set = 'A';
        else throw new Error('FNC4 (extended ASCII) is not used in tracking numbers');
        break;
      case FNC1:
      case FNC2:
      case FNC3:
        throw new Error(`function character ${value} is not used in tracking numbers`);
    }
  }
  if (shifted) throw new Error('SHIFT before the check character');
  return out;
}

/**
 * ASCII code of a data value in sets A and B: both start at space (0 → 32); set A then maps
 * 64–95 to the control characters 0–31, set B to the lower-case range 96–127.
 */
function characterCode(set: 'A' | 'B', value: number): number {
  if (set === 'A' && value >= 64) return value - 64;
  return value + 32;
}

export interface Bar {
  x: number;
  width: number;
}

/**
 * Turns bars measured in any unit (points on a page) into element widths in modules: bars and
 * the spaces between them, divided by the narrowest element, which in any Code 128 symbol is
 * one module (the stop pattern has one). Refuses widths that are not close to whole modules.
 */
export function barsToModules(bars: readonly Bar[]): number[] {
  const sorted = [...bars].sort((a, b) => a.x - b.x);
  const elements: number[] = [];
  sorted.forEach((bar, i) => {
    elements.push(bar.width);
    const next = sorted[i + 1];
    if (next) elements.push(next.x - (bar.x + bar.width));
  });
  if (elements.some((e) => e <= 0)) throw new Error('bars overlap or touch');
  const module = Math.min(...elements);
  return elements.map((e) => {
    const modules = e / module;
    const rounded = Math.round(modules);
    if (Math.abs(modules - rounded) > 0.1 || rounded > 4) {
      throw new Error(`element of ${e} is ${modules.toFixed(3)} modules, not a whole 1–4`);
    }
    return rounded;
  });
}
