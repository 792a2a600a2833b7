/**
 * `npm run codec-server`: the Temporal UI's codec endpoint as a process of its own (docker compose's
 * `codec` service). CODEC_PORT (default 8888), CODEC_HOST (default 127.0.0.1), and the UI's origin
 * in TEMPORAL_UI_URL; the keys are the workers'.
 */
import { createLogger, loadConfig, takeOverSignals } from '../runtime/index.js';
import { EncryptionCodec } from './payload-codec.js';
import { startCodecServer } from './server.js';

const config = loadConfig();
const log = createLogger(config, 'codec');
const server = await startCodecServer({
  codec: new EncryptionCodec(config.payloadEncryptionKey, config.payloadDecryptionKeys),
  port: config.codecPort,
  host: config.codecHost,
  allowedOrigins: [new URL(config.temporalUiUrl).origin],
});
log.info({ url: server.url, uiOrigin: new URL(config.temporalUiUrl).origin }, 'codec endpoint listening');
takeOverSignals(async () => {
  await server.close();
  process.exit(0);
});
