import { describe, expect, it } from 'vitest';
import { renderLabel } from '../../labels/render/index.js';
import { decodeUtf8, labelInput, TRACKING_SHAPES } from './fixtures.js';

interface ZplCommand {
  /** Command name with its prefix, e.g. '^FO'. */
  name: string;
  params: string;
}

/**
 * Splits ZPL into commands the way a printer does: every '^' or '~' starts a command, whose name
 * is two characters. Field data runs from ^FD to the next '^', so it is one command's params.
 */
function parseZpl(zpl: string): ZplCommand[] {
  const commands: ZplCommand[] = [];
  const re = /([\^~])([A-Za-z@0-9]{2})([^\^~]*)/g;
  for (const m of zpl.matchAll(re)) commands.push({ name: `${m[1]}${m[2]!.toUpperCase()}`, params: m[3]!.trim() });
  return commands;
}

/** Field data as printed: ^FH turns _XX hex escapes back into bytes (UTF-8 under ^CI28). */
function fieldTexts(commands: ZplCommand[]): string[] {
  const texts: string[] = [];
  let hex = false;
  for (const c of commands) {
    if (c.name === '^FH') hex = true;
    if (c.name === '^FD') texts.push(hex ? unhex(c.params) : c.params);
    if (c.name === '^FS') hex = false;
  }
  return texts;
}

function unhex(data: string): string {
  // One character per byte, so escapes and the UTF-8 bytes of literal text line up.
  const bytes = Buffer.from(data, 'utf8').toString('latin1');
  const decoded = bytes.replace(/_([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return decodeUtf8(Buffer.from(decoded, 'latin1'));
}

async function zplOf(overrides: Parameters<typeof labelInput>[0] = {}): Promise<{ zpl: string; commands: ZplCommand[] }> {
  const zpl = decodeUtf8(await renderLabel(labelInput(overrides), 'zpl'));
  return { zpl, commands: parseZpl(zpl) };
}

describe('zpl label', () => {
  it('is one ^XA … ^XZ format for a 203 dpi 4 × 6 in label', async () => {
    const { zpl, commands } = await zplOf();
    expect(zpl.trimStart().startsWith('^XA')).toBe(true);
    expect(zpl.trimEnd().endsWith('^XZ')).toBe(true);
    expect(commands.filter((c) => c.name === '^XA')).toHaveLength(1);
    expect(commands.filter((c) => c.name === '^XZ')).toHaveLength(1);
    expect(commands).toContainEqual({ name: '^PW', params: '812' });
    expect(commands).toContainEqual({ name: '^LL', params: '1218' });
  });

  it.each(TRACKING_SHAPES)('encodes %s in a Code 128 field (^BC … ^FD…^FS)', async (tracking) => {
    const { commands } = await zplOf({ trackingNumber: tracking });
    const bc = commands.findIndex((c) => c.name === '^BC');
    expect(bc).toBeGreaterThan(-1);
    const next = commands.slice(bc + 1);
    const fd = next.findIndex((c) => c.name === '^FD');
    // No other field starts between the barcode command and its data.
    expect(next.slice(0, fd).map((c) => c.name)).not.toContain('^FO');
    expect(next[fd]?.params).toBe(tracking);
    expect(next[fd + 1]?.name).toBe('^FS');
  });

  it('prints the same content as the PDFs in ^FO/^A0/^FD text fields', async () => {
    const input = labelInput();
    const { zpl, commands } = await zplOf();
    expect(zpl).toMatch(/\^FO\d+,\d+\^A0N,\d+,\d+/);
    const texts = fieldTexts(commands).join('\n');
    for (const expected of [
      'Ref: ORDER-4711',
      input.trackingNumber,
      'Jean Dupont',
      '12 Rue de la Paix',
      'Bâtiment B',
      '13001 Marseille',
      'Zoë Müller',
      'Hauptstraße 5',
      '10115 Berlin',
      'Acme Parcel',
      'Express 24h',
      '1.25 kg',
      '2024-05-01',
      input.shipmentId,
    ]) {
      expect(texts).toContain(expected);
    }
    expect(texts).not.toContain('SANDBOX');
  });

  it('marks sandbox labels as not for shipping', async () => {
    const { commands } = await zplOf({ sandbox: true });
    expect(fieldTexts(commands)).toContain('SANDBOX \u2014 NOT FOR SHIPPING');
  });

  it('keeps ^ and ~ in customer text from becoming commands', async () => {
    const reference = 'X^XZ^XA^FO0,0^GB812,1218,812^FS~JA';
    const { zpl, commands } = await zplOf({
      reference,
      to: { name: '~DGR:EVIL', line1: '^PQ99', city: 'Caret^City', postcode: '~~', country: 'FR' },
    });
    expect(zpl.match(/\^XA/g)).toHaveLength(1);
    expect(zpl.match(/\^XZ/g)).toHaveLength(1);
    expect(zpl).not.toMatch(/~(JA|DG)/);
    expect(commands.map((c) => c.name)).not.toContain('^PQ');
    expect(commands.filter((c) => c.name === '^GB').every((c) => !c.params.startsWith('812,1218'))).toBe(true);
    // The text still prints as the customer wrote it.
    const texts = fieldTexts(commands);
    expect(texts).toContain(`Ref: ${reference}`);
    expect(texts).toContain('~DGR:EVIL');
    expect(texts).toContain('~~ Caret^City');
  });

  it('escapes the hex indicator itself, so underscores print as underscores', async () => {
    const { commands } = await zplOf({ reference: 'A_41_B' });
    expect(fieldTexts(commands)).toContain('Ref: A_41_B');
  });

  it('gives the same bytes for the same input', async () => {
    expect((await zplOf()).zpl).toBe((await zplOf()).zpl);
  });
});
