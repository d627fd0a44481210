// The broker's estimate of PostgreSQL's clock. The wheel (wheel.ts) fires at instants on
// PostgreSQL's clock, and the broker's own clock may run ahead or behind it (another host, NTP
// steps). Each round trip that reads PostgreSQL's clock is a sample: offset = PostgreSQL's time −
// the local midpoint of the round trip, off by at most half the round trip. The sample with the
// shortest round trip in the last SAMPLE_TTL_MS wins (a slow answer says little about when it was
// read), unless a newer sample contradicts it (their error bounds do not overlap): one of the
// clocks stepped, and the newer sample is the truth.
//
// The wheel fires when even the earliest PostgreSQL time the estimate allows (earliestPgNow) has
// reached a deliverAt, so a good estimate is not refused. The estimate only decides when to try:
// the fire statement itself refuses a timer not yet due on PostgreSQL's clock (fireClaimed.ts), so
// an estimate that is wrong delays a fire, never advances it.

/** Milliseconds since the epoch, with the monotonic clock's sub-millisecond resolution. */
export const preciseNow = (): number => performance.timeOrigin + performance.now();

/** A sample older than this gives way to any newer one, however slow its round trip. */
const SAMPLE_TTL_MS = 10_000;

export class PgClock {
  private best: { rttMs: number; offsetMs: number; at: number } | undefined;
  /** Samples that contradicted the best one (a clock step), for the logs and tests. */
  steps = 0;

  /**
   * `local` is the broker's clock (tests inject one that runs ahead or behind). By default the
   * wall clock at sub-millisecond resolution (Date.now has whole milliseconds, a millisecond of lag
   * at every fire): the monotonic clock from the process's start. It drifts from the wall clock
   * over days, which the samples correct as they would a step.
   */
  constructor(readonly local: () => number = preciseNow) {}

  /** PostgreSQL's clock minus the local clock, ms (0 before the first sample). */
  get offsetMs(): number {
    return this.best?.offsetMs ?? 0;
  }

  /** PostgreSQL's time now, as estimated. */
  pgNow(): number {
    return this.local() + this.offsetMs;
  }

  /** The earliest PostgreSQL's time can be now, by the estimate's error bound (half its round trip). */
  earliestPgNow(): number {
    return this.pgNow() - (this.best?.rttMs ?? 0) / 2;
  }

  /** The local instant at which PostgreSQL's clock reads `pgMs`, as estimated. */
  toLocal(pgMs: number): number {
    return pgMs - this.offsetMs;
  }

  /** The local instant by which PostgreSQL's clock surely reads `pgMs` (the estimate's error bound included). */
  toLocalLatest(pgMs: number): number {
    return this.toLocal(pgMs) + (this.best?.rttMs ?? 0) / 2;
  }

  /** A round trip sent at `sentAt` and answered at `receivedAt` (local) read `pgMs` on PostgreSQL. */
  sample(sentAt: number, receivedAt: number, pgMs: number): void {
    const rttMs = Math.max(0, receivedAt - sentAt);
    const offsetMs = pgMs - (sentAt + receivedAt) / 2;
    const b = this.best;
    const stepped = b !== undefined && Math.abs(offsetMs - b.offsetMs) > (rttMs + b.rttMs) / 2 + 1;
    if (stepped) this.steps++;
    if (!b || stepped || rttMs <= b.rttMs || receivedAt - b.at > SAMPLE_TTL_MS) this.best = { rttMs, offsetMs, at: receivedAt };
  }
}
