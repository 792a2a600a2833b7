import { isWinAnsi, type FontMetrics } from './font-metrics.js';

/**
 * Text helpers shared by the PDF and ZPL writers. Both print with Helvetica-like fonts whose
 * character set is WinAnsi, so every string is folded to WinAnsi once here and both formats carry
 * the same content.
 */

// The layout measures with these (the same metrics for the PDF and the ZPL label).
export { helvetica, helveticaBold, type FontMetrics } from './font-metrics.js';

const ELLIPSIS = '\u2026';
const COMBINING_MARKS = /[\u0300-\u036f]/g;
// Latin letters that Unicode does not decompose into base letter + accent, yet whose base letter
// reads right on a label ('Łukasz' → 'Lukasz' rather than '?ukasz').
const LATIN_FOLDS: Record<string, string> = {
  Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Ħ: 'H', ħ: 'h', ı: 'i', Ŧ: 'T', ŧ: 't', Ŀ: 'L', ŀ: 'l', ĸ: 'k',
};

function encodable(ch: string): boolean {
  const cp = ch.codePointAt(0);
  return cp !== undefined && isWinAnsi(cp);
}

/**
 * Folds text into what a WinAnsi standard font can draw, so drawing never throws: controls and
 * other whitespace become spaces, letters the font lacks lose their accents where that yields an
 * encodable letter ('ő' → 'o'), and anything else becomes '?' ('漢' → '?').
 */
export function toWinAnsi(text: string): string {
  let out = '';
  for (const ch of text) {
    if (/^[\p{Cc}\p{Zs}\p{Zl}\p{Zp}]$/u.test(ch)) {
      out += ' ';
    } else if (encodable(ch)) {
      out += ch;
    } else {
      const folded = LATIN_FOLDS[ch] ?? ch.normalize('NFKD').replace(COMBINING_MARKS, '');
      out += folded.length > 0 && [...folded].every(encodable) ? folded : '?';
    }
  }
  // Runs of spaces from folded controls would only waste label width.
  return out.replace(/ {2,}/g, ' ').trim();
}

/** Cuts text to fit maxWidth at the given size, marking the cut with an ellipsis. */
export function fitText(text: string, font: FontMetrics, size: number, maxWidth: number): string {
  if (font.widthOf(text, size) <= maxWidth) return text;
  const chars = [...text];
  // Binary search on the kept prefix: names can be 200 characters and this runs per line.
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const candidate = chars.slice(0, mid).join('').trimEnd() + ELLIPSIS;
    if (font.widthOf(candidate, size) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join('').trimEnd() + ELLIPSIS;
}

/**
 * Splits text into at most maxLines lines no wider than maxWidth, breaking at spaces where it can;
 * the last line is cut with an ellipsis if text remains.
 */
export function wrapText(text: string, font: FontMetrics, size: number, maxWidth: number, maxLines: number): string[] {
  const lines: string[] = [];
  let rest = text.trim();
  while (rest.length > 0 && lines.length < maxLines - 1) {
    if (font.widthOf(rest, size) <= maxWidth) break;
    const chars = [...rest];
    let take = 1;
    while (take < chars.length && font.widthOf(chars.slice(0, take + 1).join(''), size) <= maxWidth) take++;
    const head = chars.slice(0, take).join('');
    const space = head.lastIndexOf(' ');
    // Break at the last space unless that would leave a tiny first line; long words are split.
    const cut = space > head.length / 3 ? space : head.length;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0) lines.push(fitText(rest, font, size, maxWidth));
  return lines;
}

/** Shows weight in grams below a kilogram and in kilograms with two decimals above. */
export function formatWeight(weightG: number): string {
  if (!Number.isFinite(weightG) || weightG < 0) return '-';
  const grams = Math.round(weightG);
  return grams < 1000 ? `${grams} g` : `${(grams / 1000).toFixed(2)} kg`;
}

/** The calendar date part of an ISO 8601 timestamp, as YYYY-MM-DD. */
export function formatDate(date: string): string {
  const match = /^\d{4}-\d{2}-\d{2}/.exec(date.trim());
  if (match) return match[0];
  const parsed = new Date(date);
  return Number.isNaN(parsed.getTime()) ? toWinAnsi(date).slice(0, 10) : parsed.toISOString().slice(0, 10);
}

/** A fixed instant for PDF metadata, so the same input yields the same bytes. */
export function metadataDate(date: string): Date {
  const parsed = new Date(date);
  return Number.isNaN(parsed.getTime()) ? new Date(0) : parsed;
}
