export { CarrierDocumentMissingError, carrierLabelFiles, UnsupportedCarrierDocumentError } from './carrier-label.js';
export type { CarrierDocument, CarrierDocumentFormat } from './carrier-label.js';
export { allLabelFiles, labelFile } from './files.js';
export { mergeLabelFiles } from './merge.js';
export { mergedBatchFile } from './batch-file.js';
export { commercialInvoicePdf } from './commercial-invoice.js';
export type { InvoiceInput } from './commercial-invoice.js';
