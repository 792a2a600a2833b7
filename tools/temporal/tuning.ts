/**
 * Dynamic config that cuts Temporal's dispatch latency, for every server the project starts (the dev
 * server of `npm start` and the tests; the cluster of `npm run fleet` and docker-compose). One history
 * shard polls each of its queues at most `*MaxPollRPS` times a second; the default (20) makes every
 * activity dispatch, timer and visibility update wait up to 50 ms (README: Benchmarks).
 */
export const DISPATCH_TUNING: Record<string, unknown> = {
  // Transfer queue: activity and workflow task dispatch. 10000/s means "as soon as a task is written".
  'history.transferProcessorMaxPollRPS': 10000,
  // Timer queue: timers, activity time-outs and retry backoffs fire on time instead of in 50 ms steps.
  'history.timerProcessorMaxPollRPS': 10000,
  // Visibility queue: list and search (the UI, `ops stuck`) see a status change at once.
  'history.visibilityProcessorMaxPollRPS': 10000,
  // Outbound queue (Nexus and callbacks): the same rule, for completeness.
  'history.outboundProcessorMaxPollRPS': 10000,
  // Matching serves a waiting task in priority order (contract: BATCH_PRIORITY): a single purchase
  // ahead of batch items. Server 1.29 ships the priority matcher off. The order holds within each of
  // a queue's partitions (four by default, each new task written to one at random), so over the
  // queue it is close, not exact. Fewer partitions would make it exact but are left as they are:
  // lowering them on a running server strands the tasks already written to the others, and a
  // queue's rate limit is split among its read partitions (lowering only the writes measured UPS's
  // queue at a quarter of its limit).
  'matching.useNewMatcher': true,
};
