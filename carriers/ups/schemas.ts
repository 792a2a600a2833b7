/**
 * Our own TypeBox schemas of the UPS operations we use, written from UPS's published OpenAPI files
 * (OAuthClientCredentials, Rating, Shipping, Tracking): the fields we send or read, spelled as UPS
 * spells them, with the documents' required fields and lengths.
 *
 * Requests are closed (`additionalProperties: false`): we send only what the documents define.
 * Answers are open: UPS adds fields between releases, and we read only what we need.
 *
 * Where a UPS schema contradicts its own listed values, the listed values win (they are what the
 * servers accept):
 * - Rating `Shipment.Service.Code` says length 3, its values are two characters (`03`);
 * - Label Recovery `LabelImageFormat.Code` says length 4, its values are three (`GIF`, `ZPL`);
 * - UPS writes an array's item length and count as `minLength`/`maxLength`/`maximum` on the array
 *   itself (`AddressLine`: 35 characters, "max occurrence 3"); here they sit on the items and `maxItems`.
 *
 * Split by operation: `schemas-common.ts` (limits, OAuth, the error body, shared pieces),
 * `schemas-rating.ts`, `schemas-shipping.ts` (ship, void, label recovery). Tracking's answers are
 * read with the schemas generated from UPS's documents (`schemas/`), as every operation will be.
 * Importers use this module.
 */
export { TokenRequest, TokenResponse, UPS_LIMITS, UpsErrorBody } from './schemas-common.js';
export { RateRequest, RateResponse } from './schemas-rating.js';
export { LabelRecoveryRequest, LabelRecoveryResponse, ShipRequest, ShipResponse, VoidResponse } from './schemas-shipping.js';
export { XAVRequestWrapper, XAVResponseWrapper } from './schemas-address-validation.js';
export { PickupCancelResponse, PickupCreationRequest, PickupCreationResponse, PickupPendingStatusResponse } from './schemas-pickup.js';
