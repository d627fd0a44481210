// The message log (Queen-compatible core): configure, push, pop, ack, dead letters.
//
// Model, on the tables of the init migration:
//  - `messages` is the log. `seq` orders a partition's frames (FIFO); frames are never updated.
//  - `partition_consumers` holds, per (partition, consumer group), the cursor (every frame with
//    seq <= cursor_seq is settled for the group) and the partition lease: a pop leases the
//    partition to one consumer of the group for the queue's leaseTime and records the batch's
//    last seq in batch_end_seq. While the lease is live, other consumers of the group skip the
//    partition — that is how `__QUEUE_MODE__` (competing consumers) keeps per-partition order.
//  - `message_deliveries` holds each frame's verdict per group: completed, failed (to be
//    redelivered; retry_count counts failures) or dlq, and the lease it was recorded under.
//  - A batch is settled when each of its frames is completed, dead-lettered, or failed under
//    this lease; then the cursor moves past the leading settled run (a failed frame stops it, so
//    it is redelivered first, in order) and the lease is released.
//
// Every statement is scoped by tenant first. Every transaction is short: a long-poll waits
// between transactions, holding no connection (embedded PGlite runs one transaction at a time).
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { jsonOf, zstdDecompress } from '../payload.ts';
import { isoSql } from '../routers/common.ts';
import type { AuthedContext } from '../trpc.ts';
import { DEFAULT_PARTITION, ensurePartitions, lockPartitionsForAppend, queueConfig } from './queues.ts';
import { viaPrisma, type Queryable } from './sql.ts';

/** Queen's consumer group for competing consumers: one cursor per partition, shared. */
export const QUEUE_MODE = '__QUEUE_MODE__';
/** A notification is only a hint: a waiting pop re-checks the log at least this often. */
export const POP_RECHECK_MS = 1_000;
/** Payload bytes one pop hands out at most (the first frame always goes): 16 MiB. */
export const POP_BATCH_BYTES = 16 * 1024 * 1024;

type Ctx = AuthedContext;

/** Runs fn in one Prisma interactive transaction, with raw SQL through the Queryable adapter. */
function transaction<T>(ctx: Ctx, fn: (db: Queryable) => Promise<T>): Promise<T> {
  return ctx.db.prisma.$transaction((tx) => fn(viaPrisma(tx as any)));
}

const bytesOf = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array));

function encryptionUnavailable(queue: string): ApiError {
  return new ApiError(
    'encryption_unavailable',
    `queue "${queue}" encrypts at rest but this broker has no QUEEN_ENCRYPTION_KEY; an operator must configure the key`,
    { retryAfter: 60 },
  );
}

// ---------------------------------------------------------------------------------------------
// configure

export interface QueueOptions {
  encryptionEnabled: boolean;
  leaseTime: number;
  retryLimit: number;
}

export async function configure(ctx: Ctx, queue: string, o: Partial<QueueOptions>): Promise<QueueOptions> {
  if (o.encryptionEnabled && !ctx.cipher) throw encryptionUnavailable(queue);
  return transaction(ctx, async (db) => {
    // Creates the queue with the schema's defaults when missing.
    // $1 tenant, $2 queue. Locks: the new row only. Rows: 0 or 1.
    await db.query('INSERT INTO queues (tenant, name) VALUES ($1, $2) ON CONFLICT (tenant, name) DO NOTHING', [ctx.principal.tenant, queue]);
    // Sets the options given; an omitted option keeps its value.
    // $1 tenant, $2 queue, $3 encryption_enabled|null, $4 lease seconds|null, $5 retry limit|null.
    // Locks: the queue row. Rows: exactly 1.
    const r = await db.query<{ encryption_enabled: boolean; lease_time_seconds: number; retry_limit: number }>(
      `UPDATE queues SET
         encryption_enabled = COALESCE($3::boolean, encryption_enabled),
         lease_time_seconds = COALESCE($4::integer, lease_time_seconds),
         retry_limit        = COALESCE($5::integer, retry_limit),
         updated_at         = now()
       WHERE tenant = $1 AND name = $2
       RETURNING encryption_enabled, lease_time_seconds, retry_limit`,
      [ctx.principal.tenant, queue, o.encryptionEnabled ?? null, o.leaseTime ?? null, o.retryLimit ?? null],
    );
    const row = r.rows[0];
    return { encryptionEnabled: row.encryption_enabled, leaseTime: Number(row.lease_time_seconds), retryLimit: Number(row.retry_limit) };
  });
}

// ---------------------------------------------------------------------------------------------
// push

export interface PushItem {
  queue: string;
  partition?: string;
  payload: unknown;
  transactionId?: string;
}

export interface PushResult {
  index: number;
  transaction_id: string;
  status: 'queued' | 'duplicate';
  message_id: string;
}

export async function push(ctx: Ctx, items: PushItem[]): Promise<PushResult[]> {
  const { tenant, sub } = ctx.principal;
  const rows = items.map((item) => ({
    queue: item.queue,
    partition: item.partition ?? DEFAULT_PARTITION,
    txn: item.transactionId ?? randomUUID(),
    id: randomUUID(),
    // The exact UTF-8 bytes of the JSON document; `data` on pop is these bytes parsed.
    bytes: Buffer.from(JSON.stringify(item.payload), 'utf8') as Buffer,
    encrypted: false,
  }));
  // The plan's payload ceiling binds pushed messages as it binds timers (a timer becomes one).
  const { maxPayloadBytes } = await ctx.tenants.plan(tenant);
  const over = rows.findIndex((r) => r.bytes.length > maxPayloadBytes);
  if (over >= 0) {
    throw new ApiError(
      'payload_too_large_for_plan',
      `items.${over}.payload is ${rows[over].bytes.length} bytes; this tenant's ceiling is ${maxPayloadBytes} bytes`,
      { field: `items.${over}.payload` },
    );
  }
  const results = await transaction(ctx, async (db) => {
    await ensurePartitions(db, tenant, rows);
    await lockPartitionsForAppend(db, rows.map((r) => ({ tenant, queue: r.queue, partition: r.partition })));
    for (const queue of new Set(rows.map((r) => r.queue))) {
      if (!(await queueConfig(db, tenant, queue)).encryptionEnabled) continue;
      // Refuse rather than store plaintext in a queue that promises encryption at rest.
      if (!ctx.cipher) throw encryptionUnavailable(queue);
      for (const r of rows) {
        if (r.queue === queue) {
          r.bytes = ctx.cipher.encrypt(r.bytes);
          r.encrypted = true;
        }
      }
    }
    // Appends the frames in item order (seq follows ordinality); a txn already in its partition
    // is skipped (the dedupe), as is a repeat within this batch.
    // $1 tenant, $2 ids, $3 queues, $4 partitions, $5 txns, $6 payloads (base64), $7 encrypted,
    // $8 producer sub. Locks: the inserted rows. Rows: one per new frame.
    const inserted = await db.query<{ id: string }>(
      `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub)
       SELECT $1, t.id, t.q, t.p, t.txn, decode(t.b64, 'base64'), t.enc, $8
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[])
            WITH ORDINALITY AS t(id, q, p, txn, b64, enc, ord)
       ORDER BY t.ord
       ON CONFLICT (tenant, queue, partition, transaction_id) DO NOTHING
       RETURNING id::text AS id`,
      [
        tenant,
        rows.map((r) => r.id),
        rows.map((r) => r.queue),
        rows.map((r) => r.partition),
        rows.map((r) => r.txn),
        rows.map((r) => r.bytes.toString('base64')),
        rows.map((r) => r.encrypted),
        sub,
      ],
    );
    const queued = new Set(inserted.rows.map((r) => r.id));
    const dupes = rows.filter((r) => !queued.has(r.id));
    const existing = new Map<string, string>();
    if (dupes.length > 0) {
      // The frames that made the duplicates duplicates.
      // $1 tenant, $2 queues, $3 partitions, $4 txns. Locks: none. Rows: one per distinct key.
      const found = await db.query<{ queue: string; partition: string; transaction_id: string; id: string }>(
        `SELECT m.queue, m.partition, m.transaction_id, m.id::text AS id
         FROM unnest($2::text[], $3::text[], $4::text[]) AS t(q, p, txn)
         JOIN messages m ON m.tenant = $1 AND m.queue = t.q AND m.partition = t.p AND m.transaction_id = t.txn`,
        [tenant, dupes.map((r) => r.queue), dupes.map((r) => r.partition), dupes.map((r) => r.txn)],
      );
      for (const f of found.rows) existing.set(`${f.queue}\u0000${f.partition}\u0000${f.transaction_id}`, f.id);
    }
    return rows.map((r, index): PushResult => {
      if (queued.has(r.id)) return { index, transaction_id: r.txn, status: 'queued', message_id: r.id };
      const id = existing.get(`${r.queue}\u0000${r.partition}\u0000${r.txn}`)!;
      return { index, transaction_id: r.txn, status: 'duplicate', message_id: id };
    });
  });
  const woken = new Set(rows.filter((_, i) => results[i].status === 'queued').map((r) => r.queue));
  for (const queue of woken) ctx.events.messagesPushed(tenant, queue);
  return results;
}

// ---------------------------------------------------------------------------------------------
// frames

export interface Frame {
  id: string;
  transactionId: string;
  partitionId: string;
  partition: string;
  queue: string;
  consumerGroup: string;
  leaseId: string | null;
  producerSub: string;
  createdAt: string;
  payload: string;
  data?: unknown;
  encrypted: boolean;
  error?: string;
}

/**
 * Stored bytes → what a reader sees: decrypted (then decompressed) when possible. A payload that
 * cannot be decrypted (no key, rotated key, corruption) is returned as stored, with an error —
 * never thrown: one bad frame must not make a whole batch (or the partition) unreadable.
 */
export async function decodePayload(
  ctx: Pick<Ctx, 'cipher'>,
  stored: Buffer,
  encrypted: boolean,
  zstd = false,
): Promise<{ payload: string; data?: unknown; encrypted: boolean; error?: string }> {
  let bytes = stored;
  if (encrypted) {
    if (!ctx.cipher) {
      return { payload: stored.toString('base64'), encrypted: true, error: 'payload is encrypted and this broker has no QUEEN_ENCRYPTION_KEY' };
    }
    try {
      bytes = ctx.cipher.decrypt(stored);
    } catch {
      return { payload: stored.toString('base64'), encrypted: true, error: 'payload cannot be decrypted with the configured QUEEN_ENCRYPTION_KEY (rotated key or corrupt ciphertext)' };
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

// ---------------------------------------------------------------------------------------------
// pop

export interface PopRequest {
  queue: string;
  partition?: string;
  consumerGroup: string;
  batch: number;
  autoAck: boolean;
  wait: boolean;
  timeoutMs: number;
}

interface FrameRow {
  seq: unknown;
  id: string;
  transaction_id: string;
  payload: Uint8Array;
  encrypted: boolean;
  producer_sub: string;
  created_at: string;
}

/**
 * Pops one batch, long-polling when asked. The wait happens between transactions: a listener
 * for pushes to this tenant's queue is armed before the first look, so a push that lands between
 * a look and the wait is never missed, and the log is re-checked every POP_RECHECK_MS anyway
 * (a notification is only a hint; leases also expire without one).
 */
export async function pop(ctx: Ctx, req: PopRequest): Promise<Frame[]> {
  const tenant = ctx.principal.tenant;
  if (!req.wait) return popOnce(ctx, req);
  let signalled = false;
  let wake: (() => void) | undefined;
  const off = ctx.events.onMessages((e) => {
    if (e.tenant !== tenant || e.queue !== req.queue) return;
    signalled = true;
    wake?.();
  });
  // A draining broker answers its long-polls at once (204) rather than lease frames to
  // connections it is about to close.
  const offDrain = ctx.events.onDrain(() => wake?.());
  const onGone = () => wake?.();
  ctx.signal.addEventListener('abort', onGone);
  const deadline = Date.now() + req.timeoutMs;
  try {
    for (;;) {
      signalled = false;
      // The caller hung up: take no lease on its behalf.
      if (ctx.signal.aborted) return [];
      const frames = await popOnce(ctx, req);
      const remaining = deadline - Date.now();
      if (frames.length > 0 || remaining <= 0 || ctx.events.draining) return frames;
      if (signalled) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, POP_RECHECK_MS));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    off();
    offDrain();
    ctx.signal.removeEventListener('abort', onGone);
  }
}

async function popOnce(ctx: Ctx, req: PopRequest): Promise<Frame[]> {
  const tenant = ctx.principal.tenant;
  const group = req.consumerGroup;
  const partitionFilter = req.partition ?? null;
  return transaction(ctx, async (db) => {
    // Gives the group a cursor on each partition of the queue it has not seen yet. Cursor 0: a
    // new named group starts at the beginning of every partition (it sees the whole log).
    // $1 tenant, $2 queue, $3 group, $4 partition|null (all). Locks: new rows. Rows: 0..n.
    await db.query(
      `INSERT INTO partition_consumers (tenant, queue, partition, consumer_group)
       SELECT p.tenant, p.queue, p.name, $3 FROM partitions p
       WHERE p.tenant = $1 AND p.queue = $2 AND ($4::text IS NULL OR p.name = $4)
         AND NOT EXISTS (SELECT 1 FROM partition_consumers c
                         WHERE c.tenant = p.tenant AND c.queue = p.queue AND c.partition = p.name AND c.consumer_group = $3)
       ON CONFLICT DO NOTHING`,
      [tenant, req.queue, group, partitionFilter],
    );
    // Picks one unleased (or lease-expired) partition with an unsettled frame after the cursor,
    // least recently served first (round-robin across partitions), and locks its consumer row;
    // a concurrent pop of the same group skips it (SKIP LOCKED) and takes another partition.
    // $1 tenant, $2 queue, $3 group, $4 partition|null. Locks: one partition_consumers row.
    // Rows: 0 or 1.
    const picked = await db.query<{ partition: string; cursor_seq: unknown; partition_id: string }>(
      `SELECT c.partition, c.cursor_seq, p.id::text AS partition_id
       FROM partition_consumers c
       JOIN partitions p ON p.tenant = c.tenant AND p.queue = c.queue AND p.name = c.partition
       WHERE c.tenant = $1 AND c.queue = $2 AND c.consumer_group = $3 AND ($4::text IS NULL OR c.partition = $4)
         AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
         AND EXISTS (
           SELECT 1 FROM messages m
           WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition AND m.seq > c.cursor_seq
             AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                             WHERE d.tenant = m.tenant AND d.consumer_group = c.consumer_group AND d.message_seq = m.seq
                               AND d.status <> 'failed'))
       ORDER BY c.updated_at, c.partition
       LIMIT 1
       FOR UPDATE OF c SKIP LOCKED`,
      [tenant, req.queue, group, partitionFilter],
    );
    const target = picked.rows[0];
    if (!target) return [];
    const cursor = Number(target.cursor_seq);
    // The batch: the first unsettled frames after the cursor, in seq order (failed ones come
    // back in their place, so order survives a retry).
    // The batch also stops at POP_BATCH_BYTES of payload (always at least one frame): a response
    // carries each payload twice (base64 and data), and one too large to serialise would fail
    // after the lease was taken, again and again.
    // $1 tenant, $2 queue, $3 partition, $4 group, $5 cursor, $6 batch size, $7 byte budget.
    // Locks: none. Rows: 1..batch.
    const batch = await db.query<FrameRow>(
      `SELECT seq, id, transaction_id, payload, encrypted, producer_sub, created_at FROM (
         SELECT m.seq, m.id::text AS id, m.transaction_id, m.payload, m.encrypted, m.producer_sub,
                ${isoSql('m.created_at')} AS created_at,
                sum(octet_length(m.payload)) OVER (ORDER BY m.seq) - octet_length(m.payload) AS bytes_before
         FROM messages m
         WHERE m.tenant = $1 AND m.queue = $2 AND m.partition = $3 AND m.seq > $5
           AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                           WHERE d.tenant = m.tenant AND d.consumer_group = $4 AND d.message_seq = m.seq AND d.status <> 'failed')
         ORDER BY m.seq
         LIMIT $6) b
       WHERE b.bytes_before < $7
       ORDER BY seq`,
      [tenant, req.queue, target.partition, group, cursor, req.batch, POP_BATCH_BYTES],
    );
    const seqs = batch.rows.map((r) => Number(r.seq));
    const batchEnd = seqs[seqs.length - 1];
    let leaseId: string | null = null;
    if (req.autoAck) {
      // autoAck: the frames are completed as they are handed out; no lease is taken.
      // $1 tenant, $2 group, $3 seqs. Locks: the delivery rows. Rows: one per frame.
      await db.query(
        `INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status)
         SELECT $1, $2, unnest($3::bigint[]), 'completed'
         ON CONFLICT (tenant, consumer_group, message_seq)
         DO UPDATE SET status = 'completed', lease_id = NULL, updated_at = now()`,
        [tenant, group, seqs],
      );
      await settleBatch(db, { tenant, queue: req.queue, partition: target.partition, group, batchEnd, leaseId: null });
    } else {
      const { leaseTimeSeconds } = await queueConfig(db, tenant, req.queue);
      // Leases the partition to this consumer for the queue's leaseTime, on PostgreSQL's clock.
      // $1 tenant, $2 queue, $3 partition, $4 group, $5 lease seconds, $6 batch end seq.
      // Locks: the consumer row (already held). Rows: 1.
      const leased = await db.query<{ lease_id: string }>(
        `UPDATE partition_consumers
         SET lease_id = gen_random_uuid(), lease_expires_at = now() + make_interval(secs => $5::integer),
             batch_end_seq = $6, updated_at = now()
         WHERE tenant = $1 AND queue = $2 AND partition = $3 AND consumer_group = $4
         RETURNING lease_id::text AS lease_id`,
        [tenant, req.queue, target.partition, group, leaseTimeSeconds, batchEnd],
      );
      leaseId = leased.rows[0].lease_id;
    }
    const frames: Frame[] = [];
    for (const row of batch.rows) {
      const decoded = await decodePayload(ctx, bytesOf(row.payload), row.encrypted);
      frames.push({
        id: row.id,
        transactionId: row.transaction_id,
        partitionId: target.partition_id,
        partition: target.partition,
        queue: req.queue,
        consumerGroup: group,
        leaseId,
        producerSub: row.producer_sub,
        createdAt: row.created_at,
        ...decoded,
      });
    }
    return frames;
  });
}

/**
 * Releases the partition's lease once its batch is settled, moving the cursor past the leading
 * run of completed/dead-lettered frames (a failed frame stops it: it is redelivered next).
 * `leaseId` null = the autoAck path (no lease to match). Returns whether the lease was released.
 */
async function settleBatch(
  db: Queryable,
  b: { tenant: string; queue: string; partition: string; group: string; batchEnd: number; leaseId: string | null },
): Promise<boolean> {
  // $1 tenant, $2 queue, $3 partition, $4 group, $5 batch end seq, $6 lease id|null.
  // Locks: the consumer row (already held). Rows: 1 when settled, else 0.
  const r = await db.query(
    `UPDATE partition_consumers c
     SET cursor_seq = COALESCE(
           (SELECT min(m.seq) - 1 FROM messages m
            WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition
              AND m.seq > c.cursor_seq AND m.seq <= $5
              AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                              WHERE d.tenant = m.tenant AND d.consumer_group = c.consumer_group
                                AND d.message_seq = m.seq AND d.status <> 'failed')),
           $5),
         lease_id = NULL, lease_expires_at = NULL, batch_end_seq = NULL, updated_at = now()
     WHERE c.tenant = $1 AND c.queue = $2 AND c.partition = $3 AND c.consumer_group = $4
       AND NOT EXISTS (
         SELECT 1 FROM messages m
         WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition
           AND m.seq > c.cursor_seq AND m.seq <= $5
           AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                           WHERE d.tenant = m.tenant AND d.consumer_group = c.consumer_group AND d.message_seq = m.seq
                             AND (d.status <> 'failed' OR d.lease_id = $6::uuid)))
     RETURNING 1`,
    [b.tenant, b.queue, b.partition, b.group, b.batchEnd, b.leaseId],
  );
  return r.rows.length > 0;
}

// ---------------------------------------------------------------------------------------------
// ack

export type AckStatus = 'completed' | 'failed' | 'dlq';

export interface AckItem {
  transactionId: string;
  partitionId: string;
  status: AckStatus;
  consumerGroup: string;
  leaseId?: string | null;
  error?: string | null;
}

export interface AckOutcome {
  transactionId: string;
  partitionId: string;
  /** The frame's verdict for the group now: a failure past retryLimit is `dlq`. */
  status: AckStatus;
  consumerGroup: string;
  retryCount: number;
  /** True when this ack settled the batch: the cursor moved and the partition is free. */
  leaseReleased: boolean;
  acknowledgedAt: string;
}

/**
 * Acks frames in one transaction; each item answers an outcome or an ApiError (batch acks report
 * per item; a single ack throws it). Items are applied in (partition, group) order so that two
 * batch acks lock the same consumer rows in the same order (no deadlock); outcomes come
 * back in input order.
 */
export async function ack(ctx: Ctx, items: AckItem[]): Promise<(AckOutcome | ApiError)[]> {
  const tenant = ctx.principal.tenant;
  const lockKey = (i: number) => `${items[i].partitionId.toLowerCase()}\u0000${items[i].consumerGroup}`;
  const order = items.map((_, i) => i).sort((a, b) => (lockKey(a) < lockKey(b) ? -1 : lockKey(a) > lockKey(b) ? 1 : a - b));
  const released = new Set<string>();
  const outcomes = await transaction(ctx, async (db) => {
    const out: (AckOutcome | ApiError)[] = new Array(items.length);
    for (const i of order) {
      try {
        out[i] = await ackOne(ctx, db, items[i], released);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        out[i] = err;
      }
    }
    return out;
  });
  // A released lease may leave redeliverable frames behind: wake this tenant's waiting pops.
  for (const queue of released) ctx.events.messagesPushed(tenant, queue);
  return outcomes;
}

async function ackOne(ctx: Ctx, db: Queryable, item: AckItem, released: Set<string>): Promise<AckOutcome> {
  const tenant = ctx.principal.tenant;
  const group = item.consumerGroup;
  // The frame named by (partitionId, transactionId) in the caller's tenant.
  // $1 tenant, $2 partition id, $3 txn. Locks: none. Rows: 0 or 1.
  const found = await db.query<{ seq: unknown; queue: string; partition: string }>(
    `SELECT m.seq, m.queue, m.partition
     FROM partitions p
     JOIN messages m ON m.tenant = p.tenant AND m.queue = p.queue AND m.partition = p.name AND m.transaction_id = $3
     WHERE p.tenant = $1 AND p.id = $2::uuid`,
    [tenant, item.partitionId, item.transactionId],
  );
  const frame = found.rows[0];
  if (!frame) {
    throw new ApiError('not_found', `no frame with transactionId "${item.transactionId}" in partition ${item.partitionId}`, { field: 'transactionId' });
  }
  const seq = Number(frame.seq);
  // The partition's consumer state for the group, locked against concurrent pops and acks.
  // $1 tenant, $2 queue, $3 partition, $4 group. Locks: the consumer row. Rows: 0 or 1.
  const consumer = await db.query<{ cursor_seq: unknown; lease_id: string | null; batch_end_seq: unknown; live: boolean | null; now: string }>(
    `SELECT cursor_seq, lease_id::text AS lease_id, batch_end_seq, lease_expires_at > now() AS live, ${isoSql('now()')} AS now
     FROM partition_consumers
     WHERE tenant = $1 AND queue = $2 AND partition = $3 AND consumer_group = $4
     FOR UPDATE`,
    [tenant, frame.queue, frame.partition, group],
  );
  const pc = consumer.rows[0];
  // The frame's verdict so far for this group.
  // $1 tenant, $2 group, $3 seq. Locks: the delivery row. Rows: 0 or 1.
  const prior = (
    await db.query<{ status: AckStatus; retry_count: number; lease_id: string | null }>(
      `SELECT status, retry_count, lease_id::text AS lease_id FROM message_deliveries
       WHERE tenant = $1 AND consumer_group = $2 AND message_seq = $3 FOR UPDATE`,
      [tenant, group, seq],
    )
  ).rows[0];
  const now = pc?.now ?? (await db.query<{ now: string }>(`SELECT ${isoSql('now()')} AS now`)).rows[0].now;
  const outcome = (status: AckStatus, retryCount: number, leaseReleased = false): AckOutcome => ({
    transactionId: item.transactionId,
    partitionId: item.partitionId,
    status,
    consumerGroup: group,
    retryCount,
    leaseReleased,
    acknowledgedAt: now,
  });
  // Final verdicts are idempotent: a retried ack answers the verdict already recorded.
  if (prior && prior.status !== 'failed') return outcome(prior.status, prior.retry_count);

  const inLiveBatch =
    pc && pc.live && pc.lease_id !== null && seq > Number(pc.cursor_seq) && seq <= Number(pc.batch_end_seq);
  if (!inLiveBatch || (item.leaseId != null && item.leaseId !== pc.lease_id)) {
    throw new ApiError(
      'lease_mismatch',
      item.leaseId != null && pc?.lease_id && item.leaseId !== pc.lease_id
        ? `leaseId ${item.leaseId} is not the live lease of this partition for consumer group "${group}"; the frame will be redelivered to its current holder`
        : `frame "${item.transactionId}" is not leased to consumer group "${group}": its lease expired or it was never popped; it will be redelivered`,
      { field: 'leaseId' },
    );
  }
  const leaseId = pc.lease_id!;
  // Already judged under this lease (a retried "failed"): answer the recorded verdict.
  if (prior && prior.lease_id === leaseId) return outcome(prior.status, prior.retry_count);

  let status = item.status;
  let retryCount = prior?.retry_count ?? 0;
  if (status === 'failed') {
    retryCount += 1;
    // retryLimit counts redeliveries after a failure: limit 3 = up to 4 deliveries, then DLQ.
    const { retryLimit } = await queueConfig(db, tenant, frame.queue);
    if (retryCount > retryLimit) status = 'dlq';
  }
  // Records the verdict under this lease.
  // $1 tenant, $2 group, $3 seq, $4 status, $5 retry count, $6 lease. Locks: the delivery row.
  // Rows: 1.
  await db.query(
    `INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status, retry_count, lease_id)
     VALUES ($1, $2, $3, $4, $5, $6::uuid)
     ON CONFLICT (tenant, consumer_group, message_seq)
     DO UPDATE SET status = EXCLUDED.status, retry_count = EXCLUDED.retry_count, lease_id = EXCLUDED.lease_id, updated_at = now()`,
    [tenant, group, seq, status, retryCount, leaseId],
  );
  if (status === 'dlq') {
    // The frame's stored bytes go to the group's dead letters as they are (still encrypted when
    // the frame is): a consumer's dead letter, replayable.
    // $1 tenant, $2 group, $3 seq, $4 error|null, $5 retry count. Locks: none beyond the new
    // row. Rows: 1.
    await db.query(
      `INSERT INTO dead_letters (tenant, queue, partition, consumer_group, message_id, transaction_id, payload, encrypted,
                                 producer_sub, error_message, retry_count, timer_key)
       SELECT m.tenant, m.queue, m.partition, $2, m.id, m.transaction_id, m.payload, m.encrypted,
              m.producer_sub, $4, $5, m.timer_key
       FROM messages m WHERE m.tenant = $1 AND m.seq = $3`,
      [tenant, group, seq, item.error ?? null, retryCount],
    );
  }
  const leaseReleased = await settleBatch(db, {
    tenant,
    queue: frame.queue,
    partition: frame.partition,
    group,
    batchEnd: Number(pc.batch_end_seq),
    leaseId,
  });
  if (leaseReleased) released.add(frame.queue);
  return outcome(status, retryCount, leaseReleased);
}

// ---------------------------------------------------------------------------------------------
// dead letters

export interface DeadLetterView {
  id: string;
  queue: string;
  partition: string;
  consumerGroup: string;
  messageId: string;
  transactionId: string;
  producerSub: string;
  errorMessage: string | null;
  retryCount: number;
  fromTimer: boolean;
  timerKey: string | null;
  createdAt: string;
  payload: string;
  data?: unknown;
  encrypted: boolean;
  error?: string;
}

export async function listDeadLetters(
  ctx: Ctx,
  q: { queue?: string; consumerGroup?: string; limit: number; offset: number },
): Promise<{ messages: DeadLetterView[]; total: number; limit: number; offset: number }> {
  const tenant = ctx.principal.tenant;
  const params = [tenant, q.queue ?? null, q.consumerGroup ?? null];
  return transaction(ctx, async (db) => {
    // One page of the tenant's dead letters, oldest first.
    // $1 tenant, $2 queue|null, $3 group|null, $4 limit, $5 offset. Locks: none. Rows: 0..limit.
    const page = await db.query<any>(
      `SELECT d.id::text AS id, d.queue, d.partition, d.consumer_group, d.message_id::text AS message_id, d.transaction_id,
              d.payload, d.encrypted, d.payload_zstd, d.producer_sub, d.error_message, d.retry_count, d.from_timer,
              d.timer_key, ${isoSql('d.created_at')} AS created_at
       FROM dead_letters d
       WHERE d.tenant = $1 AND ($2::text IS NULL OR d.queue = $2) AND ($3::text IS NULL OR d.consumer_group = $3)
       ORDER BY d.created_at, d.id
       LIMIT $4 OFFSET $5`,
      [...params, q.limit, q.offset],
    );
    // The filter's total, for paging. Same parameters as above. Rows: 1.
    const count = await db.query<{ total: unknown }>(
      `SELECT count(*) AS total FROM dead_letters d
       WHERE d.tenant = $1 AND ($2::text IS NULL OR d.queue = $2) AND ($3::text IS NULL OR d.consumer_group = $3)`,
      params,
    );
    const messages: DeadLetterView[] = [];
    for (const r of page.rows) {
      const decoded = await decodePayload(ctx, bytesOf(r.payload), r.encrypted, r.payload_zstd);
      messages.push({
        id: r.id,
        queue: r.queue,
        partition: r.partition,
        consumerGroup: r.consumer_group,
        messageId: r.message_id,
        transactionId: r.transaction_id,
        producerSub: r.producer_sub,
        errorMessage: r.error_message,
        retryCount: Number(r.retry_count),
        fromTimer: r.from_timer,
        timerKey: r.timer_key,
        createdAt: r.created_at,
        ...decoded,
      });
    }
    return { messages, total: Number(count.rows[0].total), limit: q.limit, offset: q.offset };
  });
}

export interface ReplayResult {
  replayed: true;
  id: string;
  queue: string;
  partition: string;
  transactionId: string;
  messageId: string;
}

/**
 * Re-pushes a consumer's dead letter as a NEW frame (new message id, new transaction id: the
 * original txn still names the original frame, which the dedupe would otherwise match) at the
 * end of its partition, and removes the dead letter. The new frame is in the log, so every
 * consumer group sees it. Its producerSub is the replaying subject: they pushed it.
 */
export async function replayDeadLetter(ctx: Ctx, id: string): Promise<ReplayResult> {
  const { tenant, sub } = ctx.principal;
  const result = await transaction(ctx, async (db) => {
    // The dead letter, locked so two replays cannot both push it.
    // $1 tenant, $2 id. Locks: the dead letter row. Rows: 0 or 1.
    const found = await db.query<{ queue: string; partition: string; from_timer: boolean; consumer_group: string; timer_key: string | null }>(
      `SELECT queue, partition, from_timer, consumer_group, timer_key FROM dead_letters WHERE tenant = $1 AND id = $2::uuid FOR UPDATE`,
      [tenant, id],
    );
    const row = found.rows[0];
    if (!row) throw new ApiError('not_found', `no dead letter ${id}`, { field: 'id' });
    if (row.from_timer) {
      throw new ApiError(
        'timer_dlq_not_replayable',
        `dead letter ${id} is a timer whose fire exhausted its attempts (consumer group "${row.consumer_group}"), not a frame a consumer gave up on; ` +
          'it never entered the log, so there is nothing to replay — schedule it again with POST /api/v1/timers once the cause is fixed',
        { timerKey: row.timer_key },
      );
    }
    await ensurePartitions(db, tenant, [{ queue: row.queue, partition: row.partition }]);
    const messageId = randomUUID();
    const txn = randomUUID();
    // Appends the dead letter's stored bytes (encrypted stays encrypted) as a new frame.
    // Consumer dead letters are copies of log frames, which are never compressed.
    // $1 tenant, $2 dead letter id, $3 new message id, $4 new txn, $5 producer sub. Rows: 1.
    await db.query(
      `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub)
       SELECT tenant, $3::uuid, queue, partition, $4, payload, encrypted, $5 FROM dead_letters WHERE tenant = $1 AND id = $2::uuid`,
      [tenant, id, messageId, txn, sub],
    );
    // $1 tenant, $2 id. Rows: 1.
    await db.query('DELETE FROM dead_letters WHERE tenant = $1 AND id = $2::uuid', [tenant, id]);
    return { replayed: true as const, id, queue: row.queue, partition: row.partition, transactionId: txn, messageId };
  });
  ctx.events.messagesPushed(tenant, result.queue);
  return result;
}
