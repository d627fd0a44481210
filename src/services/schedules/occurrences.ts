// A schedule's occurrences: the instants its cron expression names on the wall clock of its IANA
// time zone. Pure computation; the caller supplies "now" from PostgreSQL (one clock).
//
// croner parses and matches the expression (five fields, or six with seconds; Vixie-cron rules:
// day-of-month OR day-of-week when both are restricted). It runs here in UTC mode, as a pure
// wall-clock calendar with no zone rules of its own; this module maps each wall-clock time to an
// instant with the platform's IANA database (Intl), so the DST rules are the product's and are
// stated once, here (croner's own zone mode skips a time that falls in a gap, OCPS 1.4; the
// product fires it at the shift):
//   - a wall-clock time the zone skips (spring forward: 02:30 on the night clocks jump from 02:00
//     to 03:00) fires once, at the shift (the first instant after the gap; 03:00 local);
//   - a wall-clock time the zone repeats (fall back) fires once, at its first occurrence;
//   - several wall-clock times that land on one instant (every time in a gap lands on the shift)
//     are one occurrence: occurrences are distinct instants, strictly increasing.
// A consequence worth knowing: an hourly schedule has a two-hour gap on the night the clocks go
// back. A schedule that must keep a fixed real-time period uses timezone "UTC".
import type { Cron } from 'croner';
import { cronPattern } from '../../contract/schedules.ts';

export interface ScheduleSpec {
  cron: string;
  timezone: string;
}

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;
/** Wall-clock candidates one search may look at: the longest repeated stretch of a real zone is a few hours of seconds. */
const MAX_STEPS = 200_000;

/** The parsed expressions, cached: a sweeper pass reads the same few many times. */
const patterns = new Map<string, Cron>();
function pattern(cron: string): Cron {
  let p = patterns.get(cron);
  if (!p) {
    p = cronPattern(cron);
    if (patterns.size >= 10_000) patterns.clear();
    patterns.set(cron, p);
  }
  return p;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(timezone: string): Intl.DateTimeFormat {
  let f = formats.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timezone, f);
  }
  return f;
}

/** The wall-clock time of an instant in the zone, as UTC epoch ms (whole seconds). */
export function wallClock(timezone: string, instantMs: number): number {
  const parts: Record<string, number> = {};
  for (const p of format(timezone).formatToParts(new Date(Math.floor(instantMs / SECOND_MS) * SECOND_MS))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** The zone's offset from UTC at an instant, in ms (whole seconds). */
export const offsetAt = (timezone: string, instantMs: number) =>
  wallClock(timezone, instantMs) - Math.floor(instantMs / SECOND_MS) * SECOND_MS;

/**
 * The instant a wall-clock time stands for, by the rules above: its first instant, or for a
 * skipped time the shift. Offsets a day either side cover every transition of a real zone.
 */
export function instantOf(timezone: string, wall: number): number {
  const before = offsetAt(timezone, wall - DAY_MS);
  const after = offsetAt(timezone, wall + DAY_MS);
  const candidates = [...new Set([before, offsetAt(timezone, wall), after])]
    .map((o) => wall - o)
    .filter((t) => wallClock(timezone, t) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  // Skipped: the shift lies in (wall − after, wall − before]; find the first second on the new offset.
  let lo = wall - after; // still on the old offset
  let hi = wall - before; // on the new one
  while (hi - lo > SECOND_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / SECOND_MS) * SECOND_MS;
    if (offsetAt(timezone, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The first occurrence strictly after `afterMs`, or null when the expression has no more. */
export function nextOccurrence(spec: ScheduleSpec, afterMs: number): number | null {
  return nextWithWall(spec, afterMs)?.at ?? null;
}

/** The first occurrence after `afterMs` with the wall-clock time the expression named for it. */
function nextWithWall(spec: ScheduleSpec, afterMs: number): { at: number; wall: number } | null {
  const p = pattern(spec.cron);
  // Occurrences are monotone in their wall-clock times, so the search starts at the wall clock of
  // `afterMs`; in the second pass of a repeated hour the first candidates stand for instants
  // already past and are stepped over.
  let wall = wallClock(spec.timezone, afterMs);
  for (let step = 0; step < MAX_STEPS; step++) {
    const next = p.nextRun(new Date(wall));
    if (!next) return null;
    wall = next.getTime();
    const t = instantOf(spec.timezone, wall);
    if (t > afterMs) return { at: t, wall };
  }
  throw new Error(`no occurrence of "${spec.cron}" found within ${MAX_STEPS} steps`);
}

/** The next `n` occurrences after `afterMs`. */
export function nextOccurrences(spec: ScheduleSpec, afterMs: number, n: number): number[] {
  const out: number[] = [];
  for (let t: number | null = afterMs; out.length < n;) {
    t = nextOccurrence(spec, t);
    if (t === null) break;
    out.push(t);
  }
  return out;
}

/**
 * The latest occurrence in [fromMs, nowMs] (fromMs being an occurrence), by bisection on the
 * instant before it: next() is monotone, so this costs ~log2(span in seconds) look-ups, however
 * many occurrences were missed.
 */
export function latestOccurrence(spec: ScheduleSpec, fromMs: number, nowMs: number): number {
  let lo = fromMs - SECOND_MS; // next(lo) = fromMs ≤ now
  let hi = Math.floor(nowMs / SECOND_MS) * SECOND_MS; // next(hi) > now
  if (hi <= lo) return fromMs;
  while (hi - lo > SECOND_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / SECOND_MS) * SECOND_MS;
    const t = nextOccurrence(spec, mid);
    if (t !== null && t <= nowMs) lo = mid;
    else hi = mid;
  }
  const latest = nextOccurrence(spec, lo);
  return latest !== null && latest >= fromMs && latest <= nowMs ? latest : fromMs;
}

/**
 * How many occurrences lie in [fromMs, toMs), fromMs being one: counted one by one
 * up to `cap`, then extrapolated from the pace of the counted stretch — exact for a fixed period
 * (every N seconds or minutes) when toMs is an occurrence, as it is in a catch-up, and an estimate
 * for an irregular expression after a long outage. The cap bounds a catch-up's work per
 * schedule inside the materializing transaction, however long the outage was.
 */
export const COUNT_CAP = 1_000;
export function countOccurrences(spec: ScheduleSpec, fromMs: number, toMs: number, cap = COUNT_CAP): number {
  let n = 0;
  for (let t: number | null = fromMs; t !== null && t < toMs; t = nextOccurrence(spec, t)) {
    n++;
    if (n >= cap && t > fromMs) return Math.round(((n - 1) * (toMs - fromMs)) / (t - fromMs));
  }
  return n;
}

/**
 * What a zone's DST did to an occurrence: `skipped` — its wall-clock time does not exist that day
 * (spring forward) and it fires at the shift; `repeated` — its wall-clock time happens twice (fall
 * back) and it fires the first time; null — neither.
 */
export function dstShift(timezone: string, wall: number, at: number): 'skipped' | 'repeated' | null {
  if (wallClock(timezone, at) !== wall) return 'skipped';
  const offsets = new Set([offsetAt(timezone, wall - DAY_MS), offsetAt(timezone, wall), offsetAt(timezone, wall + DAY_MS)]);
  const instants = [...offsets].map((o) => wall - o).filter((t) => wallClock(timezone, t) === wall);
  return new Set(instants).size > 1 ? 'repeated' : null;
}

/**
 * The next `n` occurrences after `nowMs` as the API shows them: the instant, the wall-clock time
 * with its offset, the DST shift that moved or doubled it, and whether the zone's offset changed
 * since the one before (for the first: since now).
 */
export function shownOccurrences(spec: ScheduleSpec, nowMs: number, n: number) {
  const out: { at: string; local: string; dstShift: 'skipped' | 'repeated' | null; offsetChanged: boolean }[] = [];
  let previousOffset = offsetAt(spec.timezone, nowMs);
  for (let t = nowMs; out.length < n;) {
    const next = nextWithWall(spec, t);
    if (next === null) break;
    t = next.at;
    const offset = offsetAt(spec.timezone, t);
    out.push({
      at: isoInstant(t),
      local: localTime(spec.timezone, t),
      dstShift: dstShift(spec.timezone, next.wall, t),
      offsetChanged: offset !== previousOffset,
    });
    previousOffset = offset;
  }
  return out;
}

/** An instant as the wire renders it: ISO 8601, UTC, microseconds (as src/db/sql.ts's isoSql). */
export const isoInstant = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** The wall-clock time of an instant with its offset, e.g. 2026-12-05T09:00:00+01:00. */
export function localTime(timezone: string, ms: number): string {
  const wall = wallClock(timezone, ms);
  const off = Math.round((wall - Math.floor(ms / SECOND_MS) * SECOND_MS) / 60_000);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${new Date(wall).toISOString().slice(0, 19)}${sign}${hhmm}`;
}
