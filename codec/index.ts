export { EncryptionCodec, encryptingDataConverter, ENCODING, KEY_ID_METADATA, keyIdOf } from './payload-codec.js';
export { startCodecServer, type CodecServerOptions } from './server.js';
