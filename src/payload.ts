// Payload bytes at rest: zstd compression for large compressible payloads and AES-256-GCM
// encryption for queues that encrypt at rest. Order: compress, then encrypt (ciphertext does not
// compress). The zstd codec is WebAssembly (@bokuweb/zstd-wasm): it installs from the npm
// registry alone, with no native build or binary download.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { compress, decompress, init } from '@bokuweb/zstd-wasm';

/** Payloads at least this large are tried with zstd; smaller ones rarely gain enough. */
export const COMPRESS_MIN_BYTES = 1024;
/** Keep the compressed form only when it saves at least this fraction of the bytes. */
export const COMPRESS_MIN_SAVING = 0.1;
/** zstd level 3: zstd's default, and cheap enough for the request path (docs/benchmarks.md). */
const ZSTD_LEVEL = 3;

let ready: Promise<void> | undefined;
/**
 * Loads the zstd wasm module once per process. Nothing else may call the library's init(): each
 * call instantiates the module again, and its memory views then stay on the old instance, so that
 * every decompress after it fails (`code -10`, the frame read as zeros).
 */
export function initCodec(): Promise<void> {
  ready ??= init();
  return ready;
}

export async function maybeCompress(bytes: Buffer): Promise<{ bytes: Buffer; zstd: boolean }> {
  if (bytes.length < COMPRESS_MIN_BYTES) return { bytes, zstd: false };
  await initCodec();
  const packed = Buffer.from(compress(bytes, ZSTD_LEVEL));
  return packed.length <= bytes.length * (1 - COMPRESS_MIN_SAVING) ? { bytes: packed, zstd: true } : { bytes, zstd: false };
}

export async function zstdDecompress(bytes: Buffer): Promise<Buffer> {
  await initCodec();
  return Buffer.from(decompress(bytes));
}

// Ciphertext layout: version byte 0x01 | 12-byte IV | 16-byte GCM tag | ciphertext.
const VERSION = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class PayloadCipher {
  private readonly key: Buffer;
  constructor(hexKey: string) {
    this.key = Buffer.from(hexKey, 'hex');
    if (this.key.length !== 32) throw new Error('encryption key must be 32 bytes (64 hex characters)');
  }

  encrypt(plain: Buffer): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the bytes were not encrypted with this key (rotated key, corruption). */
  decrypt(sealed: Buffer): Buffer {
    if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) throw new Error('not a sealed payload');
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
  }
}

/**
 * Nesting beyond this is not parsed into `data` (the frame still carries the exact bytes): a
 * document nested tens of thousands deep parses, but cannot be serialised back (stack overflow).
 */
export const MAX_DATA_DEPTH = 512;

/** The frame's `data` field: the bytes parsed when they are one JSON document, else undefined. */
export function jsonOf(bytes: Buffer): unknown {
  if (bytes.length === 0 || nestingDepth(bytes) > MAX_DATA_DEPTH) return undefined;
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

/** The deepest [ / { nesting in JSON text, skipping strings; one pass over the bytes. */
function nestingDepth(bytes: Buffer): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** A stored payload as a reader sees it (a frame or a dead letter). */
export interface ReadablePayload {
  /** base64 of the readable bytes; of the stored bytes when they cannot be read. */
  payload: string;
  data?: unknown;
  /** true only when the bytes could not be decrypted: payload is then the ciphertext. */
  encrypted: boolean;
  error?: string;
}

/**
 * Stored bytes → what a reader sees: the inverse of seal-at-rest — decrypted, then decompressed,
 * then parsed into `data` when they are one JSON document. A payload that cannot be read (no key,
 * rotated key, corruption) is returned as stored, with an error — never thrown: one bad frame
 * must not make a whole batch (or the partition) unreadable.
 */
export async function openStored(
  cipher: PayloadCipher | undefined,
  stored: Buffer,
  encrypted: boolean,
  zstd = false,
): Promise<ReadablePayload> {
  let bytes = stored;
  if (encrypted) {
    if (!cipher) {
      return {
        payload: stored.toString('base64'),
        encrypted: true,
        error: 'payload is encrypted and this broker has no QUEEN_ENCRYPTION_KEY',
      };
    }
    try {
      bytes = cipher.decrypt(stored);
    } catch {
      return {
        payload: stored.toString('base64'),
        encrypted: true,
        error: 'payload cannot be decrypted with the configured QUEEN_ENCRYPTION_KEY (rotated key or corrupt ciphertext)',
      };
    }
  }
  if (zstd) {
    try {
      bytes = await zstdDecompress(bytes);
    } catch {
      return { payload: stored.toString('base64'), encrypted, error: 'payload cannot be decompressed (corrupt zstd frame)' };
    }
  }
  const data = jsonOf(bytes);
  return { payload: bytes.toString('base64'), ...(data !== undefined ? { data } : {}), encrypted: false };
}
