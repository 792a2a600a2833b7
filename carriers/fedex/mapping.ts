/**
 * The FedEx mapping's door: pure functions from our types to FedEx's document-shaped requests and
 * from FedEx's answers to ours, one file per topic (`mapping-*.ts`), typed by the types generated
 * from FedEx's documents (`schemas/`). No I/O here; `client.ts` does the HTTP. Beside them:
 * `services.ts`, the service table; `limits.ts`, the limits the documents state in words;
 * `errors.ts`, how FedEx's failures read; `label-zpl.ts`, FedEx's label image as ZPL.
 */
export { FEDEX_SERVICES, fedexServiceType, ourFedexServiceCode, fedexServiceServes, type FedexServiceCode } from './services.js';
export * from './mapping-address.js';
export * from './mapping-options.js';
export { buildRateRequest, parseRateResponse, transitDays, minorOf, FEDEX_RATE_PATH, FEDEX_PICKUP_TYPE, FEDEX_PACKAGING, type FedexRateInput, type FedexRatedService } from './mapping-rates.js';
export * from './mapping-shipment.js';
export * from './mapping-international.js';
export * from './mapping-tracking.js';
export * from './mapping-pickup.js';
export { classifyFedexAnswer, readFedexError, fedexErrorHint, FEDEX_ERRORS, FEDEX_ERROR_CODES, FEDEX_OPERATIONS, type FedexOperation } from './errors.js';
