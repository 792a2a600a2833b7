import bwipjs from 'bwip-js';

/**
 * Code 128 symbol as bars measured in modules. bwip-js chooses the code sets (A/B/C switches),
 * the check character and the stop pattern; the writers only scale and place the bars, so the
 * barcode is drawn as vector rectangles rather than an embedded raster that would blur on
 * thermal printers.
 */
export interface Code128Symbol {
  /** Bars left to right; `x` and `width` in modules from the left edge of the first bar. */
  bars: { x: number; width: number }[];
  /** Width from the first bar's left edge to the last bar's right edge, in modules. */
  modules: number;
}

/** Quiet zone scanners need on each side of a Code 128 symbol, in modules. */
export const QUIET_ZONE_MODULES = 10;

// Carrier tracking numbers are printable ASCII; anything else cannot be scanned back as the same
// string, so it is refused rather than printed as a barcode that would mis-scan.
const TRACKING_NUMBER = /^[\x20-\x7e]{1,80}$/;

export function assertTrackingNumber(trackingNumber: string): void {
  if (!TRACKING_NUMBER.test(trackingNumber) || trackingNumber.trim() !== trackingNumber) {
    throw new RangeError(`tracking number ${JSON.stringify(trackingNumber)} cannot be encoded as Code 128`);
  }
}

export function code128(text: string): Code128Symbol {
  assertTrackingNumber(text);
  // parsefnc stays off (its default), so '^' in the data is a literal character, not an escape.
  const raw = bwipjs.raw('code128', text, {});
  const first = raw[0];
  if (!first || !('sbs' in first)) throw new Error('bwip-js returned no Code 128 bar widths');
  // sbs alternates bar, space, bar, … widths in modules, starting and ending with a bar.
  const bars: { x: number; width: number }[] = [];
  let x = 0;
  first.sbs.forEach((width, i) => {
    if (i % 2 === 0) bars.push({ x, width });
    x += width;
  });
  return { bars, modules: x };
}

/** Dots per inch of the thermal printers the labels are laid out for. */
export const PRINTER_DPI = 203;
const POINTS_PER_DOT = 72 / PRINTER_DPI;

/**
 * The module width in whole printer dots that fits the symbol in availableDots: bars that are a
 * whole number of dots print with even widths. Capped at 4 dots (0.5 mm), a comfortable X
 * dimension; 0 means even one dot per module does not fit.
 */
export function moduleDots(modules: number, availableDots: number): number {
  return Math.min(4, Math.floor(availableDots / modules));
}

/** Module width in points for a symbol placed in availableWidth points. */
export function moduleWidthPt(modules: number, availableWidth: number): number {
  const dots = moduleDots(modules, Math.floor(availableWidth / POINTS_PER_DOT));
  // A very long tracking number may not fit at one dot per module; shrink to fit instead of
  // overflowing the label, accepting uneven bars over a barcode cut off at the edge.
  return dots >= 1 ? dots * POINTS_PER_DOT : availableWidth / modules;
}
