/**
 * The admin room's door: the portal's jobs (accounts, keys, wallets) and the stuck-shipment finder,
 * shared by the command lines beside it (main.ts: npm run admin; ops-main.ts: npm run ops) and the
 * web portal (api/web).
 */
export * from './commands.js';
export * from './stuck.js';
