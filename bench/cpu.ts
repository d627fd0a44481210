// CPU spent by the processes serving a bench (PostgreSQL's backends, a redis-server), read from
// /proc when they run on this machine: CPU per op beside a rate is less moved by other work on a
// shared machine, and it says where a rate's limit is when the producer, the broker and the
// database share two cores.
import { readFileSync } from 'node:fs';

/** Readings by pid, in ms of CPU so far; empty when /proc says nothing (the server is elsewhere). */
export type CpuReading = Map<number, number>;

/**
 * A process's CPU so far (ms), from /proc/<pid>/schedstat (nanoseconds on a CPU), which is exact
 * where stat's utime and stime count 10 ms ticks: a window of a few hundred ms over ten backends
 * would carry ticks' worth of error in each. Undefined when the process is not on this machine.
 */
function processCpuMs(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** The CPU of the given processes; empty unless each of them is on this machine. */
export function cpuOf(pids: number[]): CpuReading {
  const out: CpuReading = new Map();
  for (const pid of pids) {
    const ms = processCpuMs(pid);
    if (ms === undefined) return new Map();
    out.set(pid, ms);
  }
  return out;
}

/** The CPU of the PostgreSQL backends connected to the database `sql` is connected to. */
export async function backendCpuMs(sql: { query(text: string): Promise<{ rows: { pid: number }[] }> }): Promise<CpuReading> {
  const rows = (await sql.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows;
  return cpuOf(rows.map((r) => r.pid));
}

/** The CPU (ms) between two readings (a process born in between counts from 0); undefined without a reading. */
export function cpuBetween(before: CpuReading, after: CpuReading): number | undefined {
  if (after.size === 0) return undefined;
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}
