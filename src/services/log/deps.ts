// What the log's services use of the broker: the database, the payload cipher, the wake-ups and
// the tenants' plans. The request context satisfies it; no service sees more.
import type { Principal } from '../../auth.ts';
import type { Database } from '../../db/index.ts';
import type { Notifier } from '../../notify.ts';
import type { PayloadCipher } from '../../payload.ts';
import type { TenantDirectory } from '../../plans/tenants.ts';
import type { KnownGroups } from './groups.ts';
import type { Waiters } from './waiters.ts';

export interface LogDeps {
  db: Database;
  cipher: PayloadCipher | undefined;
  notifier: Notifier;
  tenants: TenantDirectory;
  /** Long-polls waiting in memory (./waiters.ts). */
  waiters: Waiters;
  knownGroups: KnownGroups;
  /** The request's W3C traceparent (src/http/tracing.ts), stored with what it pushes; null when none. */
  traceparent?: string | null;
}

/** Who asks: the verified credential's tenant scopes every statement; sub is the producer. */
export type Caller = Pick<Principal, 'tenant' | 'sub'>;
