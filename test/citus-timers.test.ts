// The timer contract on a Citus cluster (a coordinator and two workers, test/helpers/citus.ts):
// three brokers on the coordinator, requests spread over them, tenants whose rows live in
// different shards. Each status of a batch (scheduled, rescheduled, cancelled, too_late, absent),
// peek, list, the isolation of tenants, and a timer fired once by a sweeper, then gone from the
// timer routes and in the log. Skipped, saying why, where the cluster cannot be built.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCitus, whyNoCitus, type CitusCluster } from './helpers/citus.ts';
import { api, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { batch, cancel, keyPath, sched } from './helpers/timers.ts';

const why = whyNoCitus();
if (why) console.warn(`test/citus-timers.test.ts: skipped: ${why}`);

describe.skipIf(Boolean(why))(`the timer routes on a Citus cluster${why ? ` — skipped: ${why}` : ''}`, () => {
  let cluster: CitusCluster;
  const brokers: TestBroker[] = [];
  /** Tenants whose rows live in different shards (checked below). */
  const tenants = ['alpha', 'bravo', 'charlie'];
  beforeAll(async () => {
    cluster = await startCitus();
    // The third broker sweeps (the hand-off window at its default); the others only serve requests.
    for (const sweeper of [false, false, true]) brokers.push(await startTestBroker({ databaseUrl: cluster.url, sweeper }));
  }, 180_000);
  afterAll(async () => {
    for (const b of brokers) await b.close();
    await cluster?.close();
  }, 60_000);

  const [b0, b1, b2] = [0, 1, 2].map((i) => () => brokers[i]);
  const token = (tb: TestBroker, tenant: string) => tb.token({ tenant });
  const peek = async (tb: TestBroker, tenant: string, queue: string, key: string) =>
    api(tb, 'GET', keyPath(queue, key), { token: await token(tb, tenant) });

  it('the tenants live in different shards', async () => {
    const r = await cluster.coordinator.query<{ n: number }>(
      `SELECT count(DISTINCT get_shard_id_for_distribution_column('timers', t))::int AS n FROM unnest(ARRAY['${tenants.join("','")}']) t`,
      'queen',
    );
    expect(r[0].n).toBe(tenants.length);
  });

  it('schedule answers scheduled; another broker peeks the same timer; a second schedule of the key answers rescheduled', async () => {
    for (const tenant of tenants) {
      const first = await batch(b0(), [sched('q', 'k1', { txn: `t-${tenant}` })], { tenant });
      expect(first.status).toBe(200);
      expect(first.body.results[0]).toMatchObject({ ok: true, status: 'scheduled', queue: 'q', timerKey: 'k1', txn: `t-${tenant}` });
      const seen = await peek(b1(), tenant, 'q', 'k1');
      expect(seen.body).toMatchObject({ found: true, deliverAt: first.body.results[0].deliverAt, txn: `t-${tenant}`, claimed: false });
      const again = await batch(b1(), [sched('q', 'k1', { delayMs: 120_000 })], { tenant });
      expect(again.body.results[0]).toMatchObject({ ok: true, status: 'rescheduled' });
      expect(again.body.results[0].deliverAt > first.body.results[0].deliverAt).toBe(true);
    }
  });

  it('a reschedule of a missing key creates it; one key twice in a batch is scheduled, then rescheduled', async () => {
    const r = await batch(b2(), [sched('q', 'k2', { op: 'reschedule' }), sched('q', 'k3'), sched('q', 'k3')], { tenant: 'bravo' });
    expect(r.body.results.map((x: { status: string }) => x.status)).toEqual(['scheduled', 'scheduled', 'rescheduled']);
  });

  it('cancel answers cancelled with the txn, then absent; a missing key is absent', async () => {
    await batch(b0(), [sched('q', 'c1', { txn: 'tc' })], { tenant: 'charlie' });
    const r = await batch(b1(), [cancel('q', 'c1'), cancel('q', 'c1'), cancel('q', 'nope', 'x')], { tenant: 'charlie' });
    expect(r.body.results).toEqual([
      expect.objectContaining({ ok: true, status: 'cancelled', txn: 'tc' }),
      expect.objectContaining({ ok: false, status: 'absent', txn: null }),
      expect.objectContaining({ ok: false, status: 'absent', txn: 'x' }),
    ]);
    expect((await peek(b2(), 'charlie', 'q', 'c1')).body).toEqual({ found: false });
  });

  it('a timer in a sweeper’s hands answers too_late to schedule, reschedule and cancel, and stays as it was', async () => {
    const made = await batch(b0(), [sched('q', 'held')], { tenant: 'alpha' });
    await cluster.coordinator.query(
      `UPDATE timers SET claim_token = '00000000-0000-4000-8000-000000000001', claim_expires_at = now() + interval '1 minute'
        WHERE tenant = 'alpha' AND queue = 'q' AND timer_key = 'held'`,
      'queen',
    );
    const r = await batch(b1(), [sched('q', 'held'), sched('q', 'held', { op: 'reschedule' }), cancel('q', 'held')], { tenant: 'alpha' });
    expect(r.body.results.map((x: { status: string }) => x.status)).toEqual(['too_late', 'too_late', 'too_late']);
    const seen = await peek(b2(), 'alpha', 'q', 'held');
    expect(seen.body).toMatchObject({ found: true, claimed: true, deliverAt: made.body.results[0].deliverAt });
  });

  it('list pages a queue in byte order across brokers', async () => {
    const keys = ['b', 'a', 'B', 'é', '0'];
    await batch(
      b0(),
      keys.map((k) => sched('list', k)),
      { tenant: 'bravo' },
    );
    const seen: string[] = [];
    let after: string | null = null;
    for (const tb of [b0(), b1(), b2(), b0(), b1()]) {
      const q: string = `/api/v1/timers/list?limit=2${after !== null ? `&after=${encodeURIComponent(after)}` : ''}`;
      const res = await api(tb, 'GET', q, { token: await token(tb, 'bravo') });
      expect(res.status).toBe(200);
      seen.push(...res.body.rows.map((x: { timerKey: string }) => x.timerKey));
      if (!res.body.truncated) break;
      after = res.body.nextAfter;
    }
    expect(seen).toEqual([...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
  });

  it("another tenant's timer is not found, not listed, and absent to cancel", async () => {
    expect((await peek(b0(), 'charlie', 'q', 'k1')).body).toMatchObject({ found: true });
    expect((await peek(b1(), 'bravo', 'q', 'held')).body).toEqual({ found: false });
    const r = await batch(b2(), [cancel('q', 'held')], { tenant: 'bravo' });
    expect(r.body.results[0]).toMatchObject({ ok: false, status: 'absent' });
    expect((await peek(b0(), 'alpha', 'q', 'held')).body).toMatchObject({ found: true });
  });

  it('a due timer fires once into the log; then peek finds nothing and a cancel answers absent', async () => {
    for (const tenant of tenants) {
      const r = await batch(b0(), [sched('fire', 'now', { delayMs: 200, txn: `fire-${tenant}` })], { tenant });
      expect(r.body.results[0].status).toBe('scheduled');
    }
    await waitFor(
      async () =>
        (await cluster.coordinator.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE queue = 'fire'`, 'queen'))[0].n ===
        tenants.length,
      { timeout: 60_000, interval: 50 },
    );
    const frames = await cluster.coordinator.query<{ tenant: string; txn: string; early: boolean }>(
      `SELECT tenant, transaction_id AS txn, created_at < deliver_at AS early FROM messages WHERE queue = 'fire' ORDER BY tenant`,
      'queen',
    );
    expect(frames).toEqual(tenants.map((t) => ({ tenant: t, txn: `fire-${t}`, early: false })));
    for (const tenant of tenants) {
      expect((await peek(b1(), tenant, 'fire', 'now')).body).toEqual({ found: false });
      const c = await batch(b2(), [cancel('fire', 'now')], { tenant });
      expect(c.body.results[0]).toMatchObject({ ok: false, status: 'absent' });
    }
  });
});
