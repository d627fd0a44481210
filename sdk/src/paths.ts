// Path-safe encoding of the values the SDK puts into URL paths.

/**
 * A timer key as the tail of `/api/v1/timers/:queue/*timerKey`. The route is a catch-all, so '/'
 * is kept as is (`tenant/42` is addressed as `.../reminders/tenant/42`, the way the contract
 * writes it); everything else that is not safe in a path segment is percent-encoded — '%' (the
 * broker would otherwise decode `%41`), '?' and '#' (which would end the path), spaces,
 * non-ASCII — while ':' and '@' stay readable (`trial:acme:day7`).
 *
 * A key with a '.' or '..' segment (`a/../b`) is refused with a TypeError before any request:
 * URLs resolve dot segments away (even percent-encoded), so `DELETE .../a/../b` would address
 * the key `b` — another timer. The broker refuses such keys at schedule for the same reason.
 */
export function timerKeyPath(timerKey: string): string {
  const segments = timerKey.split('/');
  if (segments.some((s) => s === '.' || s === '..')) {
    throw new TypeError(`timer key ${JSON.stringify(timerKey)} has a '.' or '..' segment, which no URL path can carry`);
  }
  return segments.map(encodeSegment).join('/');
}

/**
 * A single path segment (a queue or partition name): everything unsafe, '/' included. '.' and
 * '..' are refused like dot segments in keys: `DELETE /api/v1/timers/../other/k` would be
 * resolved to another route before it left the client.
 */
export function segmentPath(value: string): string {
  if (value === '.' || value === '..') throw new TypeError(`${JSON.stringify(value)} cannot be a path segment`);
  return encodeSegment(value);
}

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%3A/gi, ':').replace(/%40/gi, '@');
}
