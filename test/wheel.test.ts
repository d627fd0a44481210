// The hand-off window's timing wheel (src/sweeper/wheel.ts): how takeDue cuts what it takes into
// runs, one fire statement each. Pure: no database.
import { describe, expect, it } from 'vitest';
import type { ClaimedTimer } from '../src/sweeper/claimDue.ts';
import { TimingWheel, type WheelClaim } from '../src/sweeper/wheel.ts';

const claim = (token: string): WheelClaim => ({ token, leaseEndsAt: Infinity, trace: undefined });
const row = (timerKey: string, deliverAtMs: number) =>
  ({ tid: `(0,${timerKey})`, timerKey, deliverAt: deliverAtMs / 1000, shard: null }) as unknown as ClaimedTimer;
const keys = (runs: { rows: ClaimedTimer[] }[]) => runs.map((r) => r.rows.map((x) => x.timerKey));

describe('TimingWheel.takeDue', () => {
  it('takes what is due as one run per claim, whatever the instants, and leaves what is not', () => {
    const w = new TimingWheel();
    const a = claim('a');
    w.add(a, [row('a1', 1_000), row('a2', 1_005), row('a3', 2_000)]);
    w.add(claim('b'), [row('b1', 1_010)]);
    expect(keys(w.takeDue(1_010))).toEqual([['a1', 'a2'], ['b1']]);
    expect(w.size).toBe(1);
    expect(w.nextDueMs).toBe(2_000);
  });

  it('with a lead, takes the instants ahead too, each a run of its own (timers of one instant together)', () => {
    const w = new TimingWheel();
    w.add(claim('a'), [row('a1', 990), row('a2', 995), row('a3', 1_004), row('a4', 1_004), row('a5', 1_012), row('a6', 1_030)]);
    expect(keys(w.takeDue(1_000, 20))).toEqual([['a1', 'a2'], ['a3', 'a4'], ['a5']]);
    expect(w.nextDueMs).toBe(1_030);
  });

  it('takes at most maxRuns runs: the rest stay in the wheel, in order', () => {
    const w = new TimingWheel();
    w.add(claim('a'), [row('a1', 990), row('a2', 995), row('a3', 1_004), row('a4', 1_008)]);
    expect(keys(w.takeDue(1_000, 20, 2))).toEqual([['a1', 'a2'], ['a3']]);
    expect(w.size).toBe(1);
    expect(keys(w.takeDue(1_010, 20, 0))).toEqual([]);
    expect(keys(w.takeDue(1_010))).toEqual([['a4']]);
    expect(w.size).toBe(0);
  });
});
