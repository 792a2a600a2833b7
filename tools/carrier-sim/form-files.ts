import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * A carrier's manifest as a one-page US Letter PDF: its title, number, sender and every tracking
 * number on it, as text. The simulated carriers hand it out where a real one hands out its form.
 */
export async function manifestPdf(o: { title: string; number: string; from: string[]; trackingNumbers: readonly string[] }): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([612, 792]);
  const font = await doc.embedFont(StandardFonts.Courier);
  const bold = await doc.embedFont(StandardFonts.CourierBold);
  let y = 750;
  const line = (text: string, size = 10, f = font) => {
    page.drawText(text, { x: 40, y, size, font: f });
    y -= size + 4;
  };
  line(o.title, 14, bold);
  line(`Number: ${o.number}`, 11, bold);
  line(`Pieces: ${o.trackingNumbers.length}`);
  for (const l of o.from) line(l);
  y -= 8;
  // Two columns fit up to about 90 numbers on the page; a longer list continues on the next.
  let column = 0;
  const top = y;
  for (const t of o.trackingNumbers) {
    if (y < 40) {
      column++;
      y = top;
      if (column > 1) break;
    }
    page.drawText(t, { x: 40 + column * 280, y, size: 9, font });
    y -= 13;
  }
  return doc.save({ useObjectStreams: false });
}
