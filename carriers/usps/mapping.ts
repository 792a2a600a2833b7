/**
 * The USPS mapping's door: pure functions from our types to USPS's document-shaped requests and
 * from its answers to ours, one file per topic (`mapping-*.ts`). No I/O here; `client.ts` does the
 * HTTP. Beside them: `services.ts`, the service table and the unit conversions; `errors.ts`, how
 * USPS's failures read and its cancel refusals. The OAuth token is the shared client's
 * (`uspsClientDeclaration`); `mapping-payment.ts` is the second token, the payment authorization.
 */
export * from './services.js';
export * from './errors.js';
export * from './mapping-address.js';
export * from './mapping-address-check.js';
export * from './mapping-rates.js';
export * from './mapping-options.js';
export * from './mapping-shipment.js';
export * from './mapping-returns.js';
export * from './mapping-international.js';
export * from './mapping-tracking.js';
export * from './mapping-payment.js';
