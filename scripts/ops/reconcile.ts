/**
 * `npm run --silent ops -- reconcile`: the orphan sweep run by hand, for an operator who does not want
 * to wait for the fleet's Schedule (workers/schedules.ts), which runs the same function every minute.
 */
export { sweepUnstartedPurchases as reconcileOrphans } from '../../activities/sweep.js';
