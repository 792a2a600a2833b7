/**
 * Settings of the carrier simulator and the developer tooling (tools/: start, fleet, chaos, the
 * workflow bundle, the Temporal CLI, server and test server), from the environment through the same
 * schema machinery as the service's configuration (config/config.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { LOG_LEVELS, parseSettings, processEnv, setting, SHARED_VARIABLES } from '../config/index.js';

const SIMULATOR_VARIABLES = {
  CARRIER_SIM_PORT: SHARED_VARIABLES.CARRIER_SIM_PORT,
  CARRIER_SIM_HOST: setting.text({ default: '127.0.0.1', description: 'where the carrier simulator listens (0.0.0.0 in a container)' }),
};

const path = (description: string) => Type.Optional(setting.text({ description }));

const TOOLING_VARIABLES = {
  ...SHARED_VARIABLES,
  WORKFLOW_BUNDLE_PATH: setting.text({ default: 'dist/workflow-bundle.js', description: 'where `npm run build:workflows` writes the bundle' }),
  CHAOS_KEEP: setting.oneOf(['0', '1'], { default: '0', description: '1 keeps the chaos run directory' }),
  CHAOS_LOG_LEVEL: setting.oneOf(LOG_LEVELS, { default: 'warn', description: 'log level of the chaos fleet processes' }),
  FLEET_LOG_LEVEL: setting.oneOf(LOG_LEVELS, { default: 'info', description: 'log level of the fleet processes' }),
  PATH: setting.text({ default: '', description: 'where executables are looked for' }),
  XDG_CACHE_HOME: path('the cache root; default ~/.cache'),
  GOFLAGS: path('flags for go install'),
  JAVA_HOME: path('the JDK of the Java test server; default java on PATH'),
  TEMPORAL_CLI: path('a Temporal CLI to use instead of building one'),
  TEMPORAL_SERVER_BIN: path('a Temporal server binary to use instead of building one'),
  TEMPORAL_SQL_TOOL: path("the server's sql tool; default beside TEMPORAL_SERVER_BIN"),
  TEMPORAL_SCHEMA_DIR: path("the server's PostgreSQL schema; default beside TEMPORAL_SERVER_BIN"),
  TEMPORAL_UI_SERVER_BIN: path('a Temporal UI server binary to use instead of building one'),
};

const SimulatorSchema = Type.Object(SIMULATOR_VARIABLES);
const ToolingSchema = Type.Object(TOOLING_VARIABLES);

/** The carrier simulator's settings (`npm run carrier-sim`, the compose `carrier-sim` service). */
export function simulatorSettings() {
  const v = parseSettings(SimulatorSchema, processEnv()) as Static<typeof SimulatorSchema>;
  return { port: v.CARRIER_SIM_PORT, host: v.CARRIER_SIM_HOST };
}

/** The tooling's settings, read when asked (a test may have changed the environment since). */
export function toolingSettings() {
  const v = parseSettings(ToolingSchema, processEnv()) as Static<typeof ToolingSchema>;
  return {
    dataDir: v.DATA_DIR,
    databaseUrl: v.DATABASE_URL,
    nodeEnv: v.NODE_ENV,
    workflowBundlePath: v.WORKFLOW_BUNDLE_PATH,
    chaosKeep: v.CHAOS_KEEP === '1',
    chaosLogLevel: v.CHAOS_LOG_LEVEL as string,
    fleetLogLevel: v.FLEET_LOG_LEVEL as string,
    path: v.PATH,
    xdgCacheHome: v.XDG_CACHE_HOME,
    goFlags: v.GOFLAGS,
    javaHome: v.JAVA_HOME,
    temporalCli: v.TEMPORAL_CLI,
    temporalServerBin: v.TEMPORAL_SERVER_BIN,
    temporalSqlTool: v.TEMPORAL_SQL_TOOL,
    temporalSchemaDir: v.TEMPORAL_SCHEMA_DIR,
    temporalUiServerBin: v.TEMPORAL_UI_SERVER_BIN,
  };
}

/** Every variable the tooling and the simulator read (the README's Configuration section lists them). */
export const TOOLING_VARIABLE_NAMES: readonly string[] = [...Object.keys(TOOLING_VARIABLES), ...Object.keys(SIMULATOR_VARIABLES)];

/** Whether the tooling reads a variable of this name (deploy checks). */
export function isToolingVariable(name: string): boolean {
  return Object.hasOwn(TOOLING_VARIABLES, name) || Object.hasOwn(SIMULATOR_VARIABLES, name);
}
