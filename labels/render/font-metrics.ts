import { Encodings, Font } from '@pdf-lib/standard-fonts';

/**
 * WinAnsi encoding and the AFM metrics of the two label fonts (Helvetica and Helvetica-Bold),
 * turned into flat tables once at module load: measuring a line is then array reads, where
 * looking glyph names up in the metrics' objects per character is a visible part of the
 * workers' CPU. The widths are the same as pdf-lib's StandardFontEmbedder gives (same AFM data,
 * same kerning), so the layout does not move.
 */

export interface FontMetrics {
  widthOf(text: string, size: number): number;
}

// The widest code point WinAnsi maps (U+2122, trade mark); anything above is not encodable.
const maxCodePoint = Math.max(...Encodings.WinAnsi.supportedCodePoints);
/** WinAnsi byte of each UTF-16 code unit, or -1 when WinAnsi has none (surrogates included). */
const codeByUnit = new Int16Array(maxCodePoint + 1).fill(-1);
/** Glyph name of each WinAnsi byte. */
const glyphByCode: (string | undefined)[] = new Array(256);
for (const codePoint of Encodings.WinAnsi.supportedCodePoints) {
  const { code, name } = Encodings.WinAnsi.encodeUnicodeCodePoint(codePoint);
  codeByUnit[codePoint] = code;
  glyphByCode[code] = name;
}

/** The WinAnsi byte of a UTF-16 code unit, or -1. */
export function winAnsiCode(unit: number): number {
  return unit <= maxCodePoint ? codeByUnit[unit]! : -1;
}

export function isWinAnsi(codePoint: number): boolean {
  return winAnsiCode(codePoint) >= 0;
}

function unencodable(text: string, index: number): RangeError {
  const unit = text.charCodeAt(index).toString(16).padStart(4, '0');
  return new RangeError(`WinAnsi cannot encode ${JSON.stringify(text[index])} (0x${unit}) in ${JSON.stringify(text)}`);
}

/** WinAnsi bytes of text as a binary (latin1) string, one character per byte. */
export function winAnsiBinary(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = winAnsiCode(text.charCodeAt(i));
    if (code < 0) throw unencodable(text, i);
    out += String.fromCharCode(code);
  }
  return out;
}

/** Advance widths by WinAnsi byte and kerning by byte pair, in 1/1000 em, from the AFM file. */
function tableMetrics(fontName: 'Helvetica' | 'Helvetica-Bold'): FontMetrics {
  const font = Font.load(fontName);
  const widthByGlyph = new Map(font.CharMetrics.map((m) => [m.N, m.WX]));
  const widths = new Int16Array(256);
  const codesByGlyph = new Map<string, number[]>();
  glyphByCode.forEach((glyph, code) => {
    if (glyph === undefined) return;
    // As pdf-lib: a glyph the font has no (or a zero) width for counts 250.
    widths[code] = widthByGlyph.get(glyph) || 250;
    codesByGlyph.set(glyph, [...(codesByGlyph.get(glyph) ?? []), code]);
  });
  const kerning = new Int16Array(256 * 256);
  for (const [left, right, amount] of font.KernPairs) {
    for (const l of codesByGlyph.get(left) ?? []) {
      for (const r of codesByGlyph.get(right) ?? []) kerning[(l << 8) | r] = amount;
    }
  }

  return {
    widthOf(text, size) {
      // Widths and kerning are whole numbers, so the sum is exact in any order and the result
      // equals pdf-lib's glyph-by-glyph one to the last bit.
      let total = 0;
      let previous = -1;
      for (let i = 0; i < text.length; i++) {
        const code = winAnsiCode(text.charCodeAt(i));
        if (code < 0) throw unencodable(text, i);
        total += widths[code]!;
        if (previous >= 0) total += kerning[(previous << 8) | code]!;
        previous = code;
      }
      return total * (size / 1000);
    },
  };
}

export const helvetica = tableMetrics('Helvetica');
export const helveticaBold = tableMetrics('Helvetica-Bold');
