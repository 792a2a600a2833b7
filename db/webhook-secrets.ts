/**
 * Webhook signing secrets at rest: AES-256-GCM under a key derived from WEBHOOK_SECRET_KEY, stored
 * as base64 `iv.tag.ciphertext` in `webhook_endpoints.secret_ciphertext`. The endpoint id is the
 * additional authenticated data, so a ciphertext copied onto another endpoint's row does not open.
 * The API encrypts at creation (the only time the secret is shown); the delivery activity decrypts
 * to sign.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** `whsec_` and 256 random bits (the contract asks for at least 160). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

const keyOf = (configuredKey: string) => createHash('sha256').update(configuredKey, 'utf8').digest();

export function encryptWebhookSecret(secret: string, configuredKey: string, endpointId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(configuredKey), iv);
  cipher.setAAD(Buffer.from(endpointId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64')).join('.');
}

/** Throws when the stored value was made under another key or for another endpoint, or was altered. */
export function decryptWebhookSecret(stored: string, configuredKey: string, endpointId: string): string {
  const parts = stored.split('.');
  if (parts.length !== 3) throw new Error('stored webhook secret is not iv.tag.ciphertext');
  const [iv, tag, ciphertext] = parts.map((p) => Buffer.from(p, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', keyOf(configuredKey), iv);
  decipher.setAAD(Buffer.from(endpointId, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}
