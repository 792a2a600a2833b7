import type { CarrierModule } from '../types.js';
import { createUpsAdapter, UPS_CREDENTIALS } from './adapter.js';
import { upsDefinition } from './definition.js';

export { createUpsAdapter, upsAdapterOn, upsClientConfig, UPS_CREDENTIALS } from './adapter.js';
export { upsDefinition };
export { TrackAlertEvent, trackAlertScan, TRACK_ALERT_USER_AGENT } from './track-alert.js';

export const upsCarrier: CarrierModule = {
  definition: upsDefinition,
  createHttpAdapter: (options) => createUpsAdapter(options),
  // The simulator serves UPS's origin here: the token endpoint and the APIs under `/api`.
  simulatorPath: '/ups',
  credentials: UPS_CREDENTIALS,
};
