// A cancel racing the fire, through the real routes (POST /api/v1/timers, DELETE
// /api/v1/timers/:queue/*timerKey) with the broker's sweeper running: every outcome is either
// `cancelled` and no frame, or `too_late`/`absent` and exactly one frame; after `absent` no row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onRealPostgres, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';

const RACES = 300;
// Embedded PGlite serves the broker on one connection: more in flight would only queue.
const CONCURRENT = onRealPostgres ? 20 : 4;

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker({ sweeper: true });
});
afterAll(async () => {
  await tb?.close();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cancel racing the fire', () => {
  it(`${RACES} races: cancelled ⇒ no frame; too_late or absent ⇒ exactly one frame`, async () => {
    const token = await tb.token();
    const outcomes: { key: string; txn: string; status: string }[] = [];
    const race = async (i: number) => {
      const key = `race/${i}`;
      const txn = `race-txn-${i}`;
      const delayMs = Math.floor(Math.random() * 30);
      const s = await api(tb, 'POST', '/api/v1/timers', {
        token,
        body: { operations: [{ op: 'schedule', queue: 'races', timerKey: key, delayMs, txn, payload: 'e30=' }] },
      });
      expect(s.status, s.raw).toBe(200);
      expect(s.body.results[0].status).toBe('scheduled');
      // Aim the cancel at the due instant, give or take the fire's few milliseconds.
      await pause(Math.max(0, delayMs - 10 + Math.random() * 15));
      const c = await api(tb, 'DELETE', `/api/v1/timers/races/${key}`, { token });
      expect(c.status).toBe(200);
      outcomes.push({ key, txn, status: c.body.status });
      // `absent` says "no longer pending": a row still there (nothing re-creates it) would be a lie.
      if (c.body.status === 'absent') {
        const left = await tb.sql.query(`SELECT txn FROM timers WHERE queue = 'races' AND timer_key = $1`, [key]);
        expect({ key, rows: left.rows }).toEqual({ key, rows: [] });
      }
    };
    for (let from = 0; from < RACES; from += CONCURRENT) {
      await Promise.all(Array.from({ length: Math.min(CONCURRENT, RACES - from) }, (_, j) => race(from + j)));
    }
    // Whatever was not cancelled fires; wait for the timers table to drain.
    await waitFor(async () => (await tb.sql.query(`SELECT count(*)::int AS n FROM timers WHERE queue = 'races'`)).rows[0].n === 0, {
      timeout: 30_000,
    });
    const frames = new Map<string, number>(
      (await tb.sql.query(`SELECT transaction_id, count(*)::int AS n FROM messages WHERE queue = 'races' GROUP BY 1`)).rows.map(
        (r: any) => [r.transaction_id, r.n],
      ),
    );
    const tally: Record<string, number> = {};
    for (const o of outcomes) {
      tally[o.status] = (tally[o.status] ?? 0) + 1;
      const n = frames.get(o.txn) ?? 0;
      if (o.status === 'cancelled') expect({ ...o, frames: n }).toEqual({ ...o, frames: 0 });
      else {
        expect(['too_late', 'absent']).toContain(o.status);
        expect({ ...o, frames: n }).toEqual({ ...o, frames: 1 });
      }
    }
    expect(outcomes).toHaveLength(RACES);
    // Both sides of the race were exercised (too_late is a window of a few ms and may be rare).
    expect(tally.cancelled).toBeGreaterThan(0);
    expect((tally.too_late ?? 0) + (tally.absent ?? 0)).toBeGreaterThan(0);
    console.log('race outcomes', tally);
  });
});
