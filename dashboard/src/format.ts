// How numbers and instants read on the dashboard.
import type { Count } from '../../sdk/src/index.ts';

const whole = new Intl.NumberFormat('en-US');

/** 10200000 → "10.2 M"; below 100,000 the number itself with separators. */
export function compact(n: number): string {
  if (Math.abs(n) < 100_000) return whole.format(n);
  const [d, unit] = Math.abs(n) >= 1e9 ? [1e9, 'G'] : Math.abs(n) >= 1e6 ? [1e6, 'M'] : [1e3, 'k'];
  return `${(n / d).toFixed(1).replace(/\.0$/, '')} ${unit}`;
}

/** A count as the API qualifies it: exact "1,204", estimated "≈ 10.2 M", capped "≥ 100,000". */
export function count(c: Count): string {
  if (c.basis === 'estimate') return `≈ ${compact(c.value)}`;
  if (c.basis === 'at_least') return `≥ ${whole.format(c.value)}`;
  return whole.format(c.value);
}

export const num = (n: number): string => whole.format(n);

/** The basis in words, for a count's title (hover) and screen readers. */
export const basisWords = (c: Count): string =>
  c.basis === 'estimate' ? 'estimated from PostgreSQL statistics' : c.basis === 'at_least' ? 'counting stopped at this cap' : 'counted';

/** An ISO instant in the browser's zone, to the second. */
export function instant(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { hour12: false });
}

/** Seconds as "3 s", "4 min 2 s", "2 h 5 min", "3 d 4 h". */
export function duration(s: number | null | undefined): string {
  if (s === null || s === undefined) return '—';
  const t = Math.round(s);
  if (t < 60) return `${t} s`;
  if (t < 3600) return `${Math.floor(t / 60)} min ${t % 60} s`;
  if (t < 86400) return `${Math.floor(t / 3600)} h ${Math.floor((t % 3600) / 60)} min`;
  return `${Math.floor(t / 86400)} d ${Math.floor((t % 86400) / 3600)} h`;
}

/** "in 4 min 2 s" / "3 s ago" from now. */
export function relative(iso: string): string {
  const s = (new Date(iso).getTime() - Date.now()) / 1000;
  return s >= 0 ? `in ${duration(s)}` : `${duration(-s)} ago`;
}
