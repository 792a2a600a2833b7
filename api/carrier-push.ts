import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { devCarrierWebhookSecret, type Config } from '../config/index.js';
import type { ShipmentWorkflowInput } from '../contract/index.js';
import type { Catalog } from './catalog.js';

/**
 * What carriers' pushes are checked with: each carrier's CARRIER_<CODE>_WEBHOOK_SECRET (outside
 * production, the published development secret when none is set; production has no default).
 */
export function carrierPushSecret(config: Config, catalog: Catalog, carrier: string): string | undefined {
  if (!catalog.definitions.some((d) => d.code === carrier)) return undefined;
  return config.carrierWebhookSecrets[carrier] ?? (config.production ? undefined : devCarrierWebhookSecret(carrier));
}

/** Two strings compared in constant time, whatever their lengths. */
export function sameSecret(given: string, wanted: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(wanted).digest());
}

/**
 * The carriers whose parcels are subscribed to pushed scans when their tracking starts: those that
 * offer a subscription (`capabilities.trackingSubscription`, UPS Track Alert) and whose pushes this
 * deployment can check (a push secret). Undefined when there is none.
 */
export function pushedCarriers(config: Config, catalog: Catalog): ShipmentWorkflowInput['tracking']['push'] {
  const pushed = catalog.definitions.filter((d) => d.capabilities.trackingSubscription && carrierPushSecret(config, catalog, d.code));
  if (!pushed.length) return undefined;
  return Object.fromEntries(pushed.map((d) => [d.code, { lifetimeMs: d.capabilities.trackingSubscription!.lifetimeMs }]));
}

/** How long a token our token endpoint gives a carrier lasts (UPS asks for one as it needs it). */
export const PUSH_TOKEN_TTL_SECONDS = 3_600;

/**
 * A bearer token for a carrier that signs its pushes with OAuth client credentials (UPS Track
 * Alert's `clientOauth2`): its expiry and an HMAC of it under the carrier's push secret, so every
 * API instance checks it without storing anything.
 */
export function issuePushToken(secret: string, carrier: string, nowMs: number): { token: string; expiresIn: number } {
  const expires = Math.floor(nowMs / 1000) + PUSH_TOKEN_TTL_SECONDS;
  return { token: `${expires}.${pushTokenMac(secret, carrier, expires)}`, expiresIn: PUSH_TOKEN_TTL_SECONDS };
}

/** Whether a bearer token is one issuePushToken made for this carrier and it has not expired. */
export function pushTokenValid(secret: string, carrier: string, token: string, nowMs: number): boolean {
  const m = /^(\d{1,12})\.([0-9a-f]{64})$/.exec(token);
  const expires = m ? Number(m[1]) : 0;
  const mac = sameSecret(m?.[2] ?? '', pushTokenMac(secret, carrier, expires));
  return mac && expires * 1000 > nowMs;
}

function pushTokenMac(secret: string, carrier: string, expires: number): string {
  return createHmac('sha256', secret).update(`carrier-push:${carrier}:${expires}`).digest('hex');
}
