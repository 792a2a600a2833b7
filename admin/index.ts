/**
 * The admin room's door: the portal's jobs (accounts, keys, wallets) and the stuck-shipment finder,
 * shared by the command lines beside it (main.ts: npm run admin; ops-main.ts: npm run ops) and the
 * web portal (api/web).
 */
export { adminCommands, AdminError } from './commands.js';
export type { CreateAccountOptions } from './commands.js';
export { closedRunDetails, currentDetails, findStuckShipments, formatStuck, parseAge, toDate } from './stuck.js';
export { findStuckPickups, formatStuckPickups, type StuckPickup } from './stuck-pickups.js';
export { findStuckScanForms, formatStuckScanForms, type StuckScanForm } from './stuck-forms.js';
