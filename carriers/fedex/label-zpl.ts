import zplImage from 'zpl-image';

/** A 4 × 6 in label at 203 dpi, a thermal printer's: 812 × 1218 dots. */
const DOTS = { width: 812, height: 1218 } as const;

/**
 * FedEx's label image as ZPL II for a 203 dpi 4 × 6 in thermal printer: the image scaled to the
 * label's dots, black and white at half grey, as one graphic field (`^GFA`, Z64-encoded by
 * zpl-image). FedEx makes a label once, in one format, and offers no reprint: this is how its own
 * label, and no drawing of ours, reaches a thermal printer as well as the PDFs.
 */
export async function fedexLabelZpl(imageBase64: string): Promise<string> {
  // sharp is loaded on the first conversion only: processes that never convert never load libvips.
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(Buffer.from(imageBase64, 'base64'), { failOn: 'error' })
    .flatten({ background: '#ffffff' })
    .resize(DOTS.width, DOTS.height, { fit: 'contain', background: '#ffffff' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const grf = zplImage.rgbaToZ64(new Uint8Array(data.buffer, data.byteOffset, data.length), info.width, { black: 50, notrim: true });
  return ['^XA', `^PW${DOTS.width}`, `^LL${DOTS.height}`, '^LH0,0', `^FO0,0^GFA,${grf.length},${grf.length},${grf.rowlen},${grf.z64}^FS`, '^XZ'].join('\n');
}
