// Preparing a batch before its transaction: each op in a form the statements take, its payload
// sealed as stored (compressed, then encrypted) — CPU work done before the locks are taken.
import { DEFAULT_PARTITION } from '../../contract/common.ts';
import type { TimerOperation, TimerResult } from '../../contract/timers.ts';
import { ApiError } from '../../errors.ts';
import { maybeCompress, type PayloadCipher } from '../../payload.ts';
import { encryptionUnavailable } from '../queues.ts';

export interface ScheduleOp {
  index: number;
  kind: 'schedule';
  queue: string;
  timerKey: string;
  partition: string;
  delayMs: number;
  txn: string | null;
  /** The decoded payload's size, checked against the plan's ceiling. */
  decodedBytes: number;
  /** The bytes as stored (compressed and/or encrypted), base64; filled by seal(). */
  stored: string;
  storedBytes: number;
  zstd: boolean;
  encrypted: boolean;
  plain: Buffer;
}

export interface CancelOp {
  index: number;
  kind: 'cancel';
  queue: string;
  timerKey: string;
  txn: string | null;
}

export type PreparedOp = ScheduleOp | CancelOp;

/** An op's verdict, and for a schedule its deliverAt (PostgreSQL ms) to wake the sweeper. */
export interface Applied {
  result: TimerResult;
  deliverAtMs?: number;
}

export const keyOf = (queue: string, timerKey: string) => `${queue}\u0000${timerKey}`;

/** A schedule op before sealing: its payload decoded, nothing stored yet (seal() fills that in). */
export function scheduleOp(
  index: number,
  op: { queue: string; timerKey: string; partition?: string | undefined; delayMs: number; txn?: string | null | undefined },
  payloadBase64: string,
): ScheduleOp {
  const plain = Buffer.from(payloadBase64, 'base64');
  return {
    index,
    kind: 'schedule',
    queue: op.queue,
    timerKey: op.timerKey,
    partition: op.partition ?? DEFAULT_PARTITION,
    delayMs: op.delayMs,
    txn: op.txn ?? null,
    decodedBytes: plain.length,
    stored: '',
    storedBytes: 0,
    zstd: false,
    encrypted: false,
    plain,
  };
}

export function prepare(ops: TimerOperation[]): PreparedOp[] {
  return ops.map((op, index): PreparedOp => {
    if (op.op === 'cancel') return { index, kind: 'cancel', queue: op.queue, timerKey: op.timerKey, txn: op.txn ?? null };
    return scheduleOp(index, op, op.payload);
  });
}

/**
 * Compress, then encrypt (ciphertext does not compress). Returns an error instead of sealing when
 * a queue encrypts at rest and no key is configured: storing cleartext would break the promise
 * that an encrypting queue never holds its payloads in the clear.
 */
export async function seal(cipher: PayloadCipher | undefined, ops: PreparedOp[], encrypting: Set<string>): Promise<ApiError | undefined> {
  for (const op of ops) {
    if (op.kind !== 'schedule') continue;
    const encrypt = encrypting.has(op.queue);
    if (encrypt && !cipher) return encryptionUnavailable(op.queue, `operations.${op.index}.queue`);
    const packed = await maybeCompress(op.plain);
    const bytes = encrypt ? cipher!.encrypt(packed.bytes) : packed.bytes;
    op.zstd = packed.zstd;
    op.encrypted = encrypt;
    op.stored = bytes.toString('base64');
    op.storedBytes = bytes.length;
  }
  return undefined;
}
