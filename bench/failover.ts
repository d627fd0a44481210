// npm run bench -- failover [--n=20000] [--seconds=25]
// The failover scenario of test/failover.test.ts, measured: a primary and two synchronous standbys
// ('ANY 1 (s1, s2)') of this machine's PostgreSQL 15 binaries, three compiled brokers on a
// multi-host DATABASE_URL, n timers scheduled over the given seconds with a consumer per queue,
// and the primary killed (pg_ctl stop -m immediate) once 40 % are acknowledged; the standby that
// received the most WAL is promoted and the other re-pointed at it. Prints one JSON line: the
// failover window (kill → promoted, → other standby streaming, → first good schedule, → last
// error), the errors by status, schedules/s acknowledged before the kill and after the first good
// schedule, and the checks (lost, duplicated, early, redelivered after an ack: all 0). Needs root
// and /usr/lib/postgresql/15/bin; the servers run as the postgres user.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { runFailover, startCell, whyNoCell } from '../test/helpers/failover.ts';

export async function measureFailover(o: {
  timers: number;
  seconds: number;
  emit: (line: Record<string, unknown>) => void;
}): Promise<void> {
  // The brokers are the compiled ones: built from the sources as they are now.
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: new URL('..', import.meta.url),
    stdio: 'inherit',
  });
  const why = whyNoCell();
  if (why) throw new Error(`failover: ${why}`);
  const cell = await startCell();
  try {
    const load = loadavg()[0];
    const r = await runFailover(cell, {
      timers: o.timers,
      seconds: o.seconds,
      batch: 25,
      queues: 2,
      killAt: 0.4,
      log: (line) => console.error(`failover: ${line}`),
    });
    const errors: Record<string, number> = {};
    for (const e of r.errors) errors[`${e.status} ${e.what}`] = (errors[`${e.status} ${e.what}`] ?? 0) + 1;
    o.emit({
      db: 'postgres 15: a primary and two synchronous standbys of its own',
      measure: 'failover',
      timers: o.timers,
      seconds: o.seconds,
      promoted: r.promoted,
      killToPromotedMs: r.promotedMs,
      killToRepointedMs: r.repointedMs,
      killToFirstGoodScheduleMs: r.firstGoodScheduleMs,
      killToLastErrorMs: r.lastErrorMs,
      errors,
      schedulesPerSecondBefore: r.schedulesPerSecondBefore,
      schedulesPerSecondAfter: r.schedulesPerSecondAfter,
      afterOverBefore: Math.round((r.schedulesPerSecondAfter / r.schedulesPerSecondBefore) * 100) / 100,
      acknowledged: r.acknowledged,
      lost: r.lost,
      duplicated: r.duplicated,
      early: r.early,
      redeliveredAfterAck: r.redeliveredAfterAck,
      framesReceived: r.framesReceived,
      loadAverageAtStart: Math.round(load * 100) / 100,
      loadAverageAtEnd: Math.round(loadavg()[0] * 100) / 100,
    });
  } finally {
    await cell.close();
  }
}
