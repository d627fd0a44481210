// The broker's estimate of PostgreSQL's clock. The wheel (wheel.ts) fires at instants on
// PostgreSQL's clock, and the broker's own clock may run ahead or behind it (another host, NTP
// steps). Each round trip that reads PostgreSQL's clock is a sample: offset = PostgreSQL's time −
// the local midpoint of the round trip, off by at most half the round trip. The sample with the
// shortest round trip in the last SAMPLE_TTL_MS wins (a slow answer says little about when it was
// read).
//
// The estimate only decides when to try: the fire statement itself refuses a timer not yet due on
// PostgreSQL's clock (fireClaimed.ts), so an estimate that is wrong delays a fire, never advances
// it. A refusal resets the estimate to the refusing statement's own sample.

/** A sample older than this gives way to any newer one, however slow its round trip. */
const SAMPLE_TTL_MS = 10_000;

export class PgClock {
  private best: { rttMs: number; offsetMs: number; at: number } | undefined;

  /** `local` is the broker's clock (Date.now; tests inject one that runs ahead or behind). */
  constructor(readonly local: () => number = Date.now) {}

  /** PostgreSQL's clock minus the local clock, ms (0 before the first sample). */
  get offsetMs(): number {
    return this.best?.offsetMs ?? 0;
  }

  /** PostgreSQL's time now, as estimated. */
  pgNow(): number {
    return this.local() + this.offsetMs;
  }

  /** The local instant at which PostgreSQL's clock reads `pgMs`, as estimated. */
  toLocal(pgMs: number): number {
    return pgMs - this.offsetMs;
  }

  /** A round trip sent at `sentAt` and answered at `receivedAt` (local) read `pgMs` on PostgreSQL. */
  sample(sentAt: number, receivedAt: number, pgMs: number): void {
    const rttMs = Math.max(0, receivedAt - sentAt);
    const offsetMs = pgMs - (sentAt + receivedAt) / 2;
    const b = this.best;
    if (!b || rttMs <= b.rttMs || receivedAt - b.at > SAMPLE_TTL_MS) this.best = { rttMs, offsetMs, at: receivedAt };
  }

  /** The estimate proved wrong (a fire refused as early): keep only this sample. */
  reset(sentAt: number, receivedAt: number, pgMs: number): void {
    this.best = undefined;
    this.sample(sentAt, receivedAt, pgMs);
  }
}
