/**
 * The activities room's door: each group's factory and its type (workflows import the types only;
 * the workers build the factories once with their dependencies).
 */
export * from './carriers.js';
export * from './fail-fast.js';
export * from './labels.js';
export * from './ledger.js';
export * from './metrics.js';
export * from './payments.js';
export * from './purchase.js';
export * from './shipments.js';
export * from './sweep.js';
export * from './webhook-fanout.js';
export * from './webhooks.js';
