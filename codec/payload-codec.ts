/**
 * Temporal payload encryption: every payload a client or worker sends (workflow inputs and results,
 * activity arguments, signals, updates, queries) is AES-256-GCM encrypted before it reaches the
 * server, so names and addresses never sit in history in plain text. The key comes from
 * configuration (PAYLOAD_ENCRYPTION_KEY); each payload names its key by id in its metadata, so a new
 * key can take over while the old ones (PAYLOAD_DECRYPTION_KEYS) still open older histories.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

// CommonJS: its namespaces come off the default export under plain Node.
const { temporal } = proto;

export const ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

// One encoder and decoder for every payload: a purchase passes a dozen payloads through here.
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const utf8 = (s: string) => encoder.encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? decoder.decode(b) : undefined);

/** A key's public name: derived from the key, so configuration carries the key alone. */
export function keyIdOf(key: Buffer): string {
  return `k1-${createHash('sha256').update('temporal-payload-key').update(key).digest('hex').slice(0, 16)}`;
}

function keyBytes(base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error('a payload encryption key must be 32 bytes, base64');
  return key;
}

export class EncryptionCodec implements PayloadCodec {
  private readonly encryptId: string;
  private readonly keys = new Map<string, Buffer>();
  /** The metadata's bytes are the same for every payload this codec encrypts. */
  private readonly encodingBytes = utf8(ENCODING);
  private readonly keyIdBytes: Uint8Array;

  /** `encryptionKey` encrypts (and decrypts); `decryptionKeys` only decrypt (keys being retired). */
  constructor(encryptionKey: string, decryptionKeys: readonly string[] = []) {
    const current = keyBytes(encryptionKey);
    this.encryptId = keyIdOf(current);
    this.keyIdBytes = utf8(this.encryptId);
    this.keys.set(this.encryptId, current);
    for (const old of decryptionKeys) {
      const key = keyBytes(old);
      this.keys.set(keyIdOf(key), key);
    }
  }

  get keyId(): string {
    return this.encryptId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.get(this.encryptId)!;
    return payloads.map((payload) => {
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: this.encodingBytes, [KEY_ID_METADATA]: this.keyIdBytes }, data: sealed };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // Payloads written before encryption (or by a process without it) pass through as they are.
      if (text(payload.metadata?.encoding) !== ENCODING) return payload;
      const id = text(payload.metadata?.[KEY_ID_METADATA]);
      const key = id ? this.keys.get(id) : undefined;
      if (!key) throw new Error(`payload encrypted with key ${id ?? '(none)'}, which is not configured (PAYLOAD_DECRYPTION_KEYS)`);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted payload is too short');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

/** The data converter of every client and worker: the default payload converter, then encryption. */
export function encryptingDataConverter(config: { payloadEncryptionKey: string; payloadDecryptionKeys: readonly string[] }): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(config.payloadEncryptionKey, config.payloadDecryptionKeys)] };
}
