/**
 * The process's environment. This is the only production file that touches `process.env`: the config
 * modules (config.ts, tools/tooling-config.ts) read it through `processEnv()` and validate it against
 * their schemas, and everything else gets typed settings from them. A lint rule (eslint.config.js)
 * keeps it so.
 */
export type Env = Record<string, string | undefined>;

/** The variables this process was started with; only the config modules call this. */
export function processEnv(): Env {
  return process.env;
}

/** The environment for a child process of ours: this process's own, with `overrides` on top. */
export function childEnv(overrides: Env = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}
