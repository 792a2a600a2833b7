/**
 * `npm run codec-server`: the Temporal UI's codec endpoint as a process of its own (docker compose's
 * `codec` service). CODEC_PORT (default 8888), CODEC_HOST (default 127.0.0.1), and the UI's origin
 * in TEMPORAL_UI_URL; the keys are the workers'. It needs only its configuration and the codec, so
 * it stands on config/ alone, below runtime/ (which carries the codec into every Temporal client).
 */
import pino from 'pino';
import { loadConfigOrExit } from '../config/index.js';
import { EncryptionCodec } from './payload-codec.js';
import { startCodecServer } from './server.js';

const config = loadConfigOrExit();
const log = pino({ name: 'codec', level: config.logLevel });
const server = await startCodecServer({
  codec: new EncryptionCodec(config.payloadEncryptionKey, config.payloadDecryptionKeys),
  port: config.codecPort,
  host: config.codecHost,
  allowedOrigins: [new URL(config.temporalUiUrl).origin],
});
log.info({ url: server.url, uiOrigin: new URL(config.temporalUiUrl).origin }, 'codec endpoint listening');

// The first SIGINT or SIGTERM closes the endpoint and exits; a second one while it closes does nothing more.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  });
}
