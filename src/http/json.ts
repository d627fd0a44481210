// Request bodies as JSON, with what JSON.parse loses: the exact source text of payloads.
//
// A pushed payload is stored as the bytes the client sent for that JSON value (DESIGN: "Push
// payloads are stored exactly"): re-serialising the parsed value would change numbers beyond 2^53,
// `1.0`, escapes, whitespace and duplicate keys. So the body is scanned once beside JSON.parse, and
// the source text of every value under a key named `payload` is kept by its path
// (`items.0.payload`); the body was valid UTF-8, so that text encodes back to the very bytes sent.
//
// The scan also keeps `__proto__` out of the request's own structure: inside a payload it is an
// ordinary key (stored as sent), anywhere else it is a server-owned key (every `_`-prefixed key
// is) and refused — JSON.parse makes it an own property, which a later copy by assignment would
// turn into a prototype.
import { isUtf8 } from 'node:buffer';
import { ApiError } from '../errors.ts';

export interface ParsedBody {
  value: unknown;
  /**
   * The source text of each value under a `payload` key, by its path. Scanned on first call: only
   * push stores payloads as sent, and scanning a 256-op timer batch char by char was a twentieth
   * of its CPU (docs/benchmarks.md).
   */
  payloads: () => Map<string, string>;
}

type Path = (string | number)[];

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Nesting a body may have: deeper is refused (and would exhaust the scanner's stack). */
export const MAX_JSON_DEPTH = 256;

/** Parses a JSON body held as bytes: 400 for invalid UTF-8 (naming the field) or malformed JSON. */
export function parseJsonBody(body: Buffer): ParsedBody | undefined {
  const text = body.toString('utf8');
  if (!isUtf8(body)) {
    const at = firstInvalidUtf8(body);
    const field = fieldAt(text, body.subarray(0, at).toString('utf8').length) ?? '(body)';
    throw new ApiError('validation_failed', `${field}: is not valid UTF-8 (byte ${at} of the body); send text as UTF-8`, { field });
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError('invalid_json', `body is not valid JSON: ${(err as Error).message}`, { field: '(body)' });
  }
  let scanned: Map<string, string> | undefined;
  const payloads = () => {
    if (scanned) return scanned;
    const found = new Map<string, string>();
    scan(text, (path, start, end) => found.set(path.join('.'), text.slice(start, end)));
    scanned = found;
    return found;
  };
  // A `__proto__` key outside payloads is refused now, read or not: the scan runs whenever the
  // text could spell one (as such, or through a \u escape, the only JSON escape that yields a letter).
  if (text.includes('__proto__') || text.includes('\\u')) payloads();
  return { value, payloads };
}

/** The path of the innermost value of `text` spanning character `index`, if the text scans. */
function fieldAt(text: string, index: number): string | undefined {
  let found: Path | undefined;
  try {
    scan(
      text,
      () => {},
      (path, start, end) => {
        if (start <= index && index < end && (!found || path.length >= found.length)) found = [...path];
      },
    );
  } catch {
    // not JSON either: the body as a whole
  }
  return found && found.length > 0 ? found.join('.') : undefined;
}

/**
 * Walks a JSON text already known to parse (or, for fieldAt, maybe not: it throws), calling
 * `payload` with the span of each value under a `payload` key outside other payloads and `each`
 * with the span of every value. Refuses a `__proto__` key outside payloads.
 */
function scan(
  text: string,
  payload: (path: Path, start: number, end: number) => void,
  each?: (path: Path, start: number, end: number) => void,
): void {
  let i = 0;
  const path: Path = [];
  const skipWs = () => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  };
  const readString = (): string => {
    const start = i++;
    for (;;) {
      const q = text.indexOf('"', i);
      if (q < 0) throw new SyntaxError('unterminated string');
      let slashes = 0;
      for (let k = q - 1; text.charCodeAt(k) === 0x5c; k--) slashes++;
      i = q + 1;
      if (slashes % 2 === 0) return text.slice(start, i);
    }
  };
  const value = (inPayload: boolean): void => {
    if (path.length > MAX_JSON_DEPTH) {
      const field = path.slice(0, 8).join('.');
      throw new ApiError('validation_failed', `${field}: nested deeper than ${MAX_JSON_DEPTH} levels`, { field });
    }
    skipWs();
    const start = i;
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      i++;
      skipWs();
      if (text.charCodeAt(i) === 0x7d) i++;
      else {
        for (;;) {
          skipWs();
          const key = JSON.parse(readString()) as string;
          if (key === '__proto__' && !inPayload) {
            const field = [...path, key].join('.');
            throw new ApiError('server_owned_field', `${field} is set by the server and cannot be supplied; remove it`, { field });
          }
          skipWs();
          i++; // :
          path.push(key);
          const isPayload = !inPayload && key === 'payload';
          const valueStart = i;
          value(inPayload || isPayload);
          if (isPayload) payload(path, valueStart + countWs(text, valueStart), i);
          path.pop();
          skipWs();
          if (text.charCodeAt(i++) === 0x7d) break;
        }
      }
    } else if (c === 0x5b /* [ */) {
      i++;
      skipWs();
      if (text.charCodeAt(i) === 0x5d) i++;
      else {
        for (let n = 0; ; n++) {
          path.push(n);
          value(inPayload);
          path.pop();
          skipWs();
          if (text.charCodeAt(i++) === 0x5d) break;
        }
      }
    } else if (c === 0x22 /* " */) {
      readString();
    } else {
      while (i < text.length && !WS.has(text.charCodeAt(i)) && !',]}'.includes(text[i])) i++;
      if (i === start) throw new SyntaxError(`unexpected character at ${i}`);
    }
    each?.(path, start, i);
  };
  value(false);
}

const countWs = (text: string, from: number) => {
  let n = 0;
  while (WS.has(text.charCodeAt(from + n))) n++;
  return n;
};

/** The offset of the first byte that does not begin a well-formed UTF-8 sequence. */
function firstInvalidUtf8(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    // The sequence's continuation bytes, and the range of the first one (RFC 3629's table).
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c === 0xe0) [n, lo] = [2, 0xa0];
    else if (c === 0xed) [n, hi] = [2, 0x9f];
    else if (c >= 0xe1 && c <= 0xef) n = 2;
    else if (c === 0xf0) [n, lo] = [3, 0x90];
    else if (c >= 0xf1 && c <= 0xf3) n = 3;
    else if (c === 0xf4) [n, hi] = [3, 0x8f];
    else return i;
    if (i + n >= b.length || b[i + 1] < lo || b[i + 1] > hi) return i;
    for (let k = 2; k <= n; k++) if (b[i + k] < 0x80 || b[i + k] > 0xbf) return i;
    i += n + 1;
  }
  return b.length;
}
