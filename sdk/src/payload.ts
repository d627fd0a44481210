// Payloads on the wire are base64 of the exact bytes. These helpers turn what callers hold
// (bytes, text, JSON values) into that and back, without Node's Buffer so they run in browsers.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * What a payload may be given as:
 * - `Uint8Array` (a Node `Buffer` is one): sent as is;
 * - `string`: sent as its UTF-8 text — NOT JSON-quoted (`'hi'` is the two bytes `hi`);
 * - any other JSON value (object, array, number, boolean, null): sent as `JSON.stringify(value)`.
 * To send a JSON string literal, pass `JSON.stringify('hi')`.
 */
export type Payload = Uint8Array | JsonValue;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function payloadBytes(payload: Payload): Uint8Array {
  if (payload instanceof Uint8Array) return payload;
  if (typeof payload === 'string') return utf8Encoder.encode(payload);
  const json = JSON.stringify(payload);
  if (json === undefined) throw new TypeError('payload is not a JSON value');
  return utf8Encoder.encode(json);
}

/** The wire form of a payload: base64 of its bytes. */
export function encodePayload(payload: Payload): string {
  return bytesToBase64(payloadBytes(payload));
}

export function bytesToBase64(bytes: Uint8Array): string {
  // btoa takes a "binary string"; build it in chunks so large payloads do not overflow the
  // argument limit of String.fromCharCode (~65k arguments in V8).
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

export function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A decoded payload: the exact bytes, and views of them as text and JSON. */
export interface DecodedPayload {
  readonly bytes: Uint8Array;
  /** The bytes as UTF-8 text; throws a TypeError when they are not valid UTF-8. */
  text(): string;
  /** The bytes parsed as a JSON document; throws when they are not one. */
  json<T = JsonValue>(): T;
}

export function decodePayload(base64: string): DecodedPayload {
  const bytes = base64ToBytes(base64);
  return {
    bytes,
    text: () => utf8Decoder.decode(bytes),
    json: <T>() => JSON.parse(utf8Decoder.decode(bytes)) as T,
  };
}
