/**
 * What a simulated real-carrier label shows, and its drawings: an SVG of a 4 × 6 in label at
 * 200 dpi (800 × 1200 px) for the image formats, and ZPL at 203 dpi for thermal printers. Both carry
 * the two addresses, the service, the tracking number and a barcode-like block made from it.
 */

export interface LabelArt {
  /** The carrier's name as printed (`UPS`, `USPS`, `FedEx`); its first letter marks the corner block, USPS's a P for Postal. */
  carrier: string;
  /** As printed: `UPS GROUND`, `PRIORITY MAIL`. */
  service: string;
  trackingNumber: string;
  /** Address lines, the name first. */
  from: string[];
  to: string[];
  /** `6 LBS`; empty when unknown. */
  weight: string;
  reference: string;
}

export const LABEL_PX = { width: 800, height: 1200 } as const;

/** The tracking number in groups, as carriers print it under the barcode. */
export function spacedTrackingNumber(trackingNumber: string): string {
  return trackingNumber.startsWith('1Z')
    ? trackingNumber.replace(/^(1Z)(\w{3})(\w{3})(\w{2})(\w{4})(\w{4})$/, '$1 $2 $3 $4 $5 $6')
    : trackingNumber.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/**
 * Bar widths in modules (1 to 4), alternately bar and space, for a barcode-like block: a start
 * pattern, four elements per character of the tracking number, a stop pattern. Not a decodable
 * symbology; ZPL labels carry a real Code 128 (`^BC`).
 */
export function barPattern(trackingNumber: string): number[] {
  const widths = [2, 1, 1, 2, 3, 2];
  for (const ch of trackingNumber) {
    const code = ch.charCodeAt(0);
    widths.push(1 + (code & 3), 1 + ((code >> 2) & 3), 1 + ((code >> 4) & 1) + (code & 1), 1 + ((code >> 1) & 3));
  }
  widths.push(2, 3, 3, 1, 1, 1, 2);
  return widths;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function labelSvg(art: LabelArt): string {
  const { width, height } = LABEL_PX;
  const text = (x: number, y: number, size: number, value: string, bold = false) =>
    `<text x="${x}" y="${y}" font-size="${size}"${bold ? ' font-weight="bold"' : ''}>${xml(value)}</text>`;
  const lines = (x: number, y: number, size: number, values: string[], gap: number) => values.map((v, i) => text(x, y + i * gap, size, v, false)).join('');
  const pattern = barPattern(art.trackingNumber);
  const modules = pattern.reduce((a, b) => a + b, 0);
  const module = Math.max(1, Math.floor(680 / modules));
  let x = Math.round((width - modules * module) / 2);
  const bars: string[] = [];
  pattern.forEach((w, i) => {
    if (i % 2 === 0) bars.push(`<rect x="${x}" y="830" width="${w * module}" height="210"/>`);
    x += w * module;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    '<g font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif" fill="#000">',
    lines(30, 50, 24, art.from.slice(0, 5), 30),
    text(560, 50, 28, art.weight, true),
    '<rect x="20" y="215" width="760" height="4"/>',
    text(30, 265, 26, 'SHIP TO:', true),
    lines(60, 315, 36, art.to.slice(0, 5), 46),
    '<rect x="20" y="560" width="760" height="8"/>',
    `<rect x="20" y="580" width="150" height="150"/>`,
    text(48, 680, 72, art.carrier === 'USPS' ? 'P' : art.carrier.charAt(0), true).replace('<text', '<text fill="#fff"'),
    text(200, 640, 44, art.service, true),
    text(200, 700, 26, `TRACKING #: ${spacedTrackingNumber(art.trackingNumber)}`, true),
    '<rect x="20" y="750" width="760" height="4"/>',
    ...bars,
    text(Math.max(30, 400 - art.trackingNumber.length * 11), 1085, 30, spacedTrackingNumber(art.trackingNumber)),
    '<rect x="20" y="1110" width="760" height="4"/>',
    text(30, 1160, 24, art.reference ? `REF: ${art.reference}` : ''),
    '</g>',
    `<rect x="10" y="10" width="${width - 20}" height="${height - 20}" fill="none" stroke="#000" stroke-width="4"/>`,
    '</svg>',
  ].join('');
}

/** ZPL II for a 4 × 6 in label at 203 dpi; `^` and `~` in field data would be commands, so they become spaces. */
export function labelZpl(art: LabelArt): string {
  const fd = (value: string) => value.replace(/[\^~]/g, ' ');
  const field = (x: number, y: number, size: number, value: string) => `^FO${x},${y}^A0N,${size},${size}^FD${fd(value)}^FS`;
  return [
    '^XA',
    '^CI28^PW812^LL1218^LH0,0',
    ...art.from.slice(0, 5).map((line, i) => field(30, 30 + i * 30, 26, line)),
    field(580, 30, 30, art.weight),
    '^FO20,215^GB772,4,4^FS',
    field(30, 240, 28, 'SHIP TO:'),
    ...art.to.slice(0, 5).map((line, i) => field(60, 285 + i * 46, 38, line)),
    '^FO20,560^GB772,8,8^FS',
    field(40, 600, 48, art.service),
    field(40, 670, 28, `TRACKING #: ${spacedTrackingNumber(art.trackingNumber)}`),
    '^FO20,750^GB772,4,4^FS',
    `^FO60,800^BY3^BCN,220,Y,N,N^FD${fd(art.trackingNumber)}^FS`,
    '^FO20,1110^GB772,4,4^FS',
    field(30, 1140, 26, art.reference ? `REF: ${art.reference}` : ''),
    '^XZ',
  ].join('\n');
}
