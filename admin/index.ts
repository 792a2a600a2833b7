/**
 * The admin room's door: the portal's jobs (accounts, keys, wallets) and the stuck-shipment finder,
 * shared by the admin command line (scripts/admin.ts, scripts/ops.ts) and the web portal (api/web).
 */
export { adminCommands, AdminError } from './commands.js';
export type { CreateAccountOptions } from './commands.js';
export { closedRunDetails, currentDetails, findStuckShipments, formatStuck, parseAge } from './stuck.js';
