// The broker's long-lived parts, shared by every request and by the sweeper (src/broker.ts builds
// them). Domain code that needs them takes this type, never the request context (src/context.ts).
import type { Verifier } from '../auth.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import type { Notifier } from '../notify.ts';
import type { PayloadCipher } from '../payload.ts';
import type { FireHistory } from '../maintenance/fireHistory.ts';
import type { PendingCounts } from '../plans/pendingCounts.ts';
import type { TenantDirectory } from '../plans/tenants.ts';
import type { ClusterFlagsCache } from './cluster.ts';
import type { KnownGroups } from './log/groups.ts';
import type { Waiters } from './log/waiters.ts';

/** Long-lived parts shared by every request of one broker. */
export interface Services {
  config: Config;
  db: Database;
  verify: Verifier;
  metrics: Metrics;
  cluster: ClusterFlagsCache;
  tenants: TenantDirectory;
  /** The pending-timer quota's cached counts (src/plans/pendingCounts.ts). */
  pendingCounts: PendingCounts;
  /** This broker's fire-lag counts since their last flush (src/maintenance/fireHistory.ts). */
  fireHistory: FireHistory;
  /** Wakes waiters (long-poll pops) and the sweeper; see src/notify.ts. */
  notifier: Notifier;
  /** Long-poll pops waiting in memory (src/services/log/waiters.ts). */
  waiters: Waiters;
  /** Consumer groups known to be registered (src/services/log/groups.ts). */
  knownGroups: KnownGroups;
  log: Logger;
  /** Present when QUEEN_ENCRYPTION_KEY is set; queues with encryptionEnabled need it. */
  cipher: PayloadCipher | undefined;
}
