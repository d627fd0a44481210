// What the timer services use of the broker. The request context satisfies it; no service sees more.
import type { Database } from '../../db/index.ts';
import type { Metrics } from '../../metrics.ts';
import type { Notifier } from '../../notify.ts';
import type { PayloadCipher } from '../../payload.ts';
import type { TenantDirectory } from '../../plans/tenants.ts';
import type { PendingCounts } from '../../plans/pendingCounts.ts';

export interface TimerDeps {
  db: Database;
  cipher: PayloadCipher | undefined;
  notifier: Notifier;
  tenants: TenantDirectory;
  metrics: Metrics;
  pendingCounts: PendingCounts;
  /** The request's W3C traceparent (src/http/tracing.ts), stored with what it schedules; null when none. */
  traceparent?: string | null;
}

/** Who asks: the verified credential's tenant scopes every statement; sub is the producer. */
export interface Caller {
  tenant: string;
  sub: string;
}
