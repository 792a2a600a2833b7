// Tracing lives in runtime/ (production code); the scripts use it from there.
export * from '../runtime/tracing.js';
