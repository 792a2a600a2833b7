/**
 * The labels room's door: rendering label files (PDF and ZPL) and the stored file of a shipment,
 * shared by the label activities (which render and store them) and the API (which serves them).
 */
export * from './files.js';
export * from './render/index.js';
export {
  CARRIER_DOCUMENT_FORMATS,
  carrierLabelFiles,
  CarrierDocumentMissingError,
  UnsupportedCarrierDocumentError,
  type CarrierDocument,
  type CarrierDocumentFormat,
  type CarrierLabelFile,
} from './carrier-label.js';
