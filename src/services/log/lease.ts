// Lease renewal: a consumer that needs longer than its queue's leaseTime extends the lease it
// popped under, so its batch is not redelivered to another consumer meanwhile.
import type { RenewResult } from '../../contract/log.ts';
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { isoSql } from '../../db/sql.ts';
import { commitWith, inTransaction } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { DEFAULT_LEASE_SECONDS } from '../queues.ts';
import type { Caller, LogDeps } from './deps.ts';

/**
 * renewLease — $1 tenant, $2 lease id, $3 seconds|null (null: the queue's leaseTime). A lease
 * that has expired is not renewed: another consumer may already hold the partition, or may pop
 * it at any moment. updated_at is left alone (it orders the partitions pops pick from).
 * Locks: the consumer rows under that lease (found by partition_consumers_lease).
 * Rows: one per renewed row, with the new end.
 */
export const RENEW_LEASE_SQL = `
UPDATE partition_consumers c
   SET lease_expires_at = now() + make_interval(secs => coalesce($3::integer,
         (SELECT q.lease_time_seconds FROM queues q WHERE q.tenant = c.tenant AND q.name = c.queue), ${DEFAULT_LEASE_SECONDS}))
 WHERE c.tenant = $1 AND c.lease_id = $2::uuid AND c.lease_expires_at > now()
RETURNING ${isoSql('c.lease_expires_at')} AS expires_at`;

export async function renewLease(
  deps: Pick<LogDeps, 'db'>,
  caller: Pick<Caller, 'tenant'>,
  leaseId: string,
  seconds?: number,
): Promise<RenewResult> {
  const r = await inTransaction(
    deps.db.pool,
    (tx) => commitWith<{ expires_at: string }>(tx, RENEW_LEASE_SQL, [caller.tenant, leaseId, seconds ?? null]),
    {
      setup: setLocal(INDEX_PLANS),
    },
  );
  if (r.rows.length === 0) {
    throw new ApiError(
      'lease_mismatch',
      `lease ${leaseId} is not live: it expired or its batch was settled; its frames are redelivered to the next pop`,
      { field: 'leaseId' },
    );
  }
  return { leaseId, success: true, newExpiresAt: r.rows[0].expires_at, renewed: r.rows.length };
}
