export { ENCODING, encryptingDataConverter, EncryptionCodec, KEY_ID_METADATA, keyIdOf } from './payload-codec.js';
export { startCodecServer } from './server.js';
