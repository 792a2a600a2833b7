/**
 * A whole service on one machine, for the tests and the benchmarks: the shared infrastructure (one
 * PostgreSQL, one Temporal dev server, one carrier simulator, one workflow bundle), a stack of API
 * and workers on it, and a customer's calls. Tools import no tests; the tests' support builds on this.
 */
export { startInfra, type Infra } from './infra.js';
export { startLocalStack, type LocalStack, type LocalStackOptions } from './stack.js';
export { address, call, createAccount, parcel, type Answer, type TestAccount } from './customer.js';
