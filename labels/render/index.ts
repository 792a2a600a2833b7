import { layoutLabel, type LabelElement } from './layout.js';
import { renderPdf } from './pdf.js';
import type { LabelFormat, LabelInput } from './types.js';
import { renderZpl } from './zpl.js';

export { LABEL_FORMATS, type LabelFormat, type LabelInput } from './types.js';

let renders = 0;
/** How many labels this process has rendered: downloads must never add to it. */
export const renderCount = () => renders;

/**
 * Renders a shipping label. Every format carries both addresses, carrier, service, reference,
 * weight, date and the tracking number as text and as a Code 128 barcode; sandbox labels carry a
 * "not for shipping" banner. The same input always gives the same bytes.
 *
 * Throws a RangeError when the tracking number is not printable ASCII (it could not be scanned
 * back as itself); any other text is folded to what the label fonts can print.
 */
export function renderLabel(input: LabelInput, format: LabelFormat): Promise<Uint8Array> {
  return labelRenderer(input)(format);
}

/**
 * renderLabel for several formats of one label: the layout (text fitting and the barcode) is
 * computed on the first render and shared by the others, not laid out again for
 * each format. Each call gives the same bytes as renderLabel(input, format).
 */
export function labelRenderer(input: LabelInput): (format: LabelFormat) => Promise<Uint8Array> {
  let elements: readonly LabelElement[] | undefined;
  const layout = (): readonly LabelElement[] => (elements ??= layoutLabel(input));
  return async (format) => {
    renders++;
    switch (format) {
      case 'pdf_6x4':
        return renderPdf(input, layout(), 'label');
      case 'pdf_a4':
        return renderPdf(input, layout(), 'a4');
      case 'zpl':
        return renderZpl(layout());
      default:
        throw new RangeError(`unknown label format ${JSON.stringify(format satisfies never)}`);
    }
  };
}

export function contentTypeFor(format: LabelFormat): 'application/pdf' | 'application/zpl' {
  return format === 'zpl' ? 'application/zpl' : 'application/pdf';
}
