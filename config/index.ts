/**
 * The config room's door: the one place that reads the environment. A schema of every variable (its
 * default, bounds and production rules), parsed once at start into the plain `Config` object that
 * everything else is given.
 */
export { carrierSimUrl, loadConfig, loadConfigOrExit, parseConfig } from './config.js';
export type { Config, ParseOptions } from './config.js';
export { CONFIG_VARIABLES, carrierVariable, isConfigVariable, LOG_LEVELS, realCarrierVariables, SHARED_VARIABLES } from './schema.js';
export { ConfigError, parseSettings, setting } from './settings.js';
export { DEV_PAYLOAD_ENCRYPTION_KEY, devCarrierWebhookSecret, PUBLISHED_EXAMPLE_VALUES } from './production.js';
export { childEnv, processEnv } from './env.js';
