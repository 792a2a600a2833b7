// Webhook rules without I/O: which URLs and addresses may receive deliveries, the schedule, and
// signing secrets at rest.
import { describe, expect, it } from 'vitest';
import { decryptWebhookSecret, encryptWebhookSecret, generateWebhookSecret } from '../../db/index.js';
import {
  checkWebhookUrl,
  isPublicAddress,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_MS,
} from '../../domain/index.js';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '192.0.2.5',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '64:ff9b::a00:1',
    '2001:db8::1',
    '2002:a00:1::1',
    // IPv4-compatible IPv6, discard-only and benchmarking ranges.
    '::7f00:1',
    '100::1',
    '198.19.0.1',
    'not an address',
  ])('refuses %s', (ip) => expect(isPublicAddress(ip)).toBe(false));

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4009:81f::200e', '::ffff:8.8.8.8'])(
    'accepts %s',
    (ip) => expect(isPublicAddress(ip)).toBe(true),
  );
});

describe('checkWebhookUrl', () => {
  const strict = { allowPrivate: false };
  const refused = (url: string, options = strict) => {
    const r = checkWebhookUrl(url, options);
    return r.ok ? null : r.message;
  };

  it('takes https URLs on public names and addresses', () => {
    expect(checkWebhookUrl('https://hooks.example.com/in?x=1', strict)).toMatchObject({ ok: true, host: 'hooks.example.com', ipLiteral: false });
    expect(checkWebhookUrl('https://93.184.215.14:8443/in', strict)).toMatchObject({ ok: true, ipLiteral: true });
    expect(checkWebhookUrl('https://[2606:4700:4700::1111]/in', strict)).toMatchObject({ ok: true, host: '2606:4700:4700::1111', ipLiteral: true });
  });

  it('refuses other schemes, credentials, and private or loopback hosts', () => {
    expect(refused('http://hooks.example.com/')).toBe('must use https');
    expect(refused('ftp://hooks.example.com/')).toBe('must use https');
    expect(refused('not a url')).toBe('must be an absolute URL');
    expect(refused('https://user:pw@hooks.example.com/')).toBe('must not contain credentials');
    for (const url of [
      'https://127.0.0.1/',
      'https://localhost/',
      'https://api.localhost./x',
      'https://10.0.0.8/',
      'https://[::1]/',
      'https://[::ffff:192.168.0.1]/',
      'https://169.254.169.254/latest/meta-data',
      // Forms the URL parser turns into 127.0.0.1.
      'https://2130706433/',
      'https://0x7f.0.0.1/',
    ]) {
      expect(refused(url), url).toBe('must resolve to a public address');
    }
  });

  it('allows plain http and private addresses only with WEBHOOK_ALLOW_PRIVATE', () => {
    const open = { allowPrivate: true };
    expect(checkWebhookUrl('http://127.0.0.1:8080/hooks', open)).toMatchObject({ ok: true });
    expect(checkWebhookUrl('https://localhost/hooks', open)).toMatchObject({ ok: true });
    expect(refused('ftp://127.0.0.1/', open)).toBe('must use https or http');
    expect(refused('http://u:p@127.0.0.1/', open)).toBe('must not contain credentials');
  });
});

describe('the retry schedule', () => {
  it('is six attempts: at once, then 10 s, 1 min, 5 min, 30 min and 2 h after each failure (spec §6, §8)', () => {
    expect(WEBHOOK_RETRY_DELAYS_MS).toEqual([10_000, 60_000, 300_000, 1_800_000, 7_200_000]);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(6);
  });
});

describe('signing secrets', () => {
  const key = 'a-configured-key';

  it('are whsec_ with at least 160 random bits, never the same twice', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]+$/);
    expect((a.length - 'whsec_'.length) * 6).toBeGreaterThanOrEqual(160);
    expect(a).not.toBe(b);
  });

  it('are stored as AES-256-GCM iv.tag.ciphertext that opens only with the same key and endpoint', () => {
    const secret = generateWebhookSecret();
    const stored = encryptWebhookSecret(secret, key, 'we_1');
    expect(stored.split('.')).toHaveLength(3);
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(encryptWebhookSecret(secret, key, 'we_1')).not.toBe(stored); // a fresh IV each time
    expect(decryptWebhookSecret(stored, key, 'we_1')).toBe(secret);
    expect(() => decryptWebhookSecret(stored, 'another-key', 'we_1')).toThrow();
    expect(() => decryptWebhookSecret(stored, key, 'we_2')).toThrow();
    const [iv, tag, ct] = stored.split('.');
    const altered = Buffer.from(ct, 'base64');
    altered[0] ^= 1;
    expect(() => decryptWebhookSecret([iv, tag, altered.toString('base64')].join('.'), key, 'we_1')).toThrow();
  });
});
