// What queen-timers' schedule measure (bench/run.ts) and the peers' (bench/peers.ts) share.

/**
 * Schedule batches posted untimed before the timed ones, on both sides: 20, or a quarter of the
 * batches when there are fewer than 80. The first batches of a fresh process pay for its JIT, its
 * pools and (here) the client thread's start; the figure is the rate of a process that has served.
 */
export function scheduleWarmupBatches(batches: number): number {
  return Math.min(20, Math.floor(batches / 4));
}
