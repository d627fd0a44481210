// The order in which a batch takes its row locks, so concurrent batches never wait on each other
// in a cycle.
import { byteOrder } from '../../db/sql.ts';
import { keyOf, type PreparedOp } from './prepare.ts';

/**
 * Splits the batch into runs in which no (queue, timerKey) repeats. Ops on distinct keys commute,
 * so each run is applied set-based (one upsert, one delete); a key touched twice starts a new run,
 * which keeps "schedule then cancel the same key" answering scheduled, then cancelled.
 */
export function runsOfDistinctKeys(ops: PreparedOp[]): PreparedOp[][] {
  const runs: PreparedOp[][] = [];
  let current: PreparedOp[] = [];
  let seen = new Set<string>();
  for (const op of ops) {
    const k = keyOf(op.queue, op.timerKey);
    if (seen.has(k)) {
      runs.push(current);
      current = [];
      seen = new Set();
    }
    seen.add(k);
    current.push(op);
  }
  if (current.length) runs.push(current);
  return runs;
}

/**
 * Row locks are taken in one global order — (queue, timerKey) in byte order, as every statement
 * here sorts — so that concurrent batches never wait on each other in a cycle. A run mixing
 * schedules and cancels is applied as chunks of consecutive same-kind ops in that order (ops on
 * distinct keys commute). Two passes (all upserts, then all deletes) deadlocked on a quarter of
 * contended batches, each costing deadlock_timeout before the replay; in key order none did
 * (docs/benchmarks.md).
 * A run alternating kinds more often than this is applied as "lock existing keys in order, then
 * one upsert, one delete": fewer statements, and a replay covers the rare cycle through new keys.
 */
export const MAX_ORDERED_CHUNKS = 8;

export function chunksInKeyOrder(run: PreparedOp[]): PreparedOp[][] {
  // One kind only (the usual batch): one chunk, whose statement sorts its keys itself. Sorting here
  // (a Buffer per key per comparison) was a twentieth of a 256-op schedule's CPU (docs/benchmarks.md).
  if (run.every((op) => op.kind === run[0].kind)) return run.length ? [run] : [];
  const sorted = [...run].sort((a, b) => byteOrder(a.queue, b.queue) || byteOrder(a.timerKey, b.timerKey));
  const chunks: PreparedOp[][] = [];
  for (const op of sorted) {
    const last = chunks[chunks.length - 1];
    if (last && last[0].kind === op.kind) last.push(op);
    else chunks.push([op]);
  }
  return chunks;
}
