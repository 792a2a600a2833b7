/**
 * The door of domain/ for workflow code: the names, vocabularies and rules a workflow decides with, and
 * nothing that reads configuration or validates input. Every new workflow evaluates every module of
 * its bundle afresh (the SDK's isolation), and through the index that meant the configuration schema,
 * TypeBox and ipaddr.js on each purchase's first workflow task.
 */
export * from './errors.js';
export * from './failures.js';
export * from './ids.js';
export * from './status.js';
export * from './temporal.js';
export * from './webhook-schedule.js';
export type { Address } from './address.js';
export type { Parcel } from './parcel.js';
