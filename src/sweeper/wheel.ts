// The hand-off window's timing wheel: timers claimed ahead of their instant (claimDue with
// QUEEN_SWEEPER_HANDOFF_MS), held in memory until PostgreSQL's clock reaches their deliverAt, then
// fired by the pass (pass.ts). Each entry keeps the claim it came from: its token guards the fire,
// as for any claimed batch.
//
// The window holds at most a few batches, and claims arrive in deliverAt order, so the wheel is
// one array kept in (deliverAt, timerKey) order: an insert is an append in the usual case (binary
// search otherwise), taking what is due is a slice off the front.
import type { Context } from '../tracing.ts';
import type { ClaimedTimer } from './claimDue.ts';

/** The claim a wheel entry came from. */
export interface WheelClaim {
  token: string;
  /** Local clock: after it the rows may belong to another broker, so they are dropped, not fired. */
  leaseEndsAt: number;
  trace: Context | undefined;
}

export interface WheelEntry {
  claim: WheelClaim;
  row: ClaimedTimer;
}

/** Entries due together, of one claim, in deliverAt order: one fire statement. */
export interface WheelRun {
  claim: WheelClaim;
  rows: ClaimedTimer[];
}

export class TimingWheel {
  private entries: WheelEntry[] = [];

  get size(): number {
    return this.entries.length;
  }

  /** The earliest deliverAt held, ms since the epoch on PostgreSQL's clock; undefined when empty. */
  get nextDueMs(): number | undefined {
    const first = this.entries[0];
    return first ? first.row.deliverAt * 1000 : undefined;
  }

  add(claim: WheelClaim, rows: ClaimedTimer[]): void {
    for (const row of rows) this.insert({ claim, row });
  }

  /**
   * Takes every entry due at `pgNowMs` (PostgreSQL's clock), in deliverAt order, cut into runs of
   * one claim each: fired one after the other, the runs keep the log in deliverAt order. With
   * `aheadMs`, also the entries due within that much after `pgNowMs`, each instant a run of its
   * own (a run is fired at its last timer's instant). At most `maxRuns` runs: the rest stay.
   */
  takeDue(pgNowMs: number, aheadMs = 0, maxRuns = Infinity): WheelRun[] {
    const runs: WheelRun[] = [];
    let n = 0;
    for (; n < this.entries.length; n++) {
      const e = this.entries[n];
      if (e.row.deliverAt * 1000 > pgNowMs + aheadMs) break;
      const last = runs[runs.length - 1];
      const prev = last?.rows[last.rows.length - 1];
      const sameInstant = prev !== undefined && (e.row.deliverAt * 1000 <= pgNowMs || e.row.deliverAt === prev.deliverAt);
      if (last && last.claim === e.claim && sameInstant) last.rows.push(e.row);
      else if (runs.length < maxRuns) runs.push({ claim: e.claim, rows: [e.row] });
      else break;
    }
    this.entries.splice(0, n);
    return runs;
  }

  /** Empties the wheel; returns the tokens of the claims it held (to release them). */
  drain(): string[] {
    const tokens = new Set(this.entries.map((e) => e.claim.token));
    this.entries = [];
    return [...tokens];
  }

  private insert(e: WheelEntry): void {
    const a = this.entries;
    if (a.length === 0 || compare(a[a.length - 1], e) <= 0) {
      a.push(e);
      return;
    }
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(a[mid], e) <= 0) lo = mid + 1;
      else hi = mid;
    }
    a.splice(lo, 0, e);
  }
}

function compare(a: WheelEntry, b: WheelEntry): number {
  return a.row.deliverAt - b.row.deliverAt || (a.row.timerKey < b.row.timerKey ? -1 : a.row.timerKey > b.row.timerKey ? 1 : 0);
}
