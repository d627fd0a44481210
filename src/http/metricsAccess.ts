// Who may read /metrics (QUEEN_METRICS_AUTH). The series name tenants and queues unless
// QUEEN_METRICS_TENANT_LABELS=false, so a broker whose port is reachable from outside the
// operator's network should put a credential in front of them:
//  - `none` (the default): anyone who reaches the port. Kept as the default because Prometheus
//    scrapes /metrics without a credential out of the box and a changed default would silently
//    break every existing scrape; the operator who exposes the port chooses `token` or `operator`.
//  - `token`: `Authorization: Bearer <QUEEN_METRICS_TOKEN>`, the static secret Prometheus's
//    `authorization.credentials_file` sends. Compared in constant time.
//  - `operator`: a JWT of the operator tenant with the admin grant, as the admin routes take.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Verifier } from '../auth.ts';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Resolves when the request may read /metrics; throws the ApiError to answer otherwise. */
export async function checkMetricsAccess(
  config: Pick<Config, 'QUEEN_METRICS_AUTH' | 'QUEEN_METRICS_TOKEN' | 'QUEEN_OPERATOR_TENANT'>,
  verify: Verifier,
  authorization: string | undefined,
): Promise<void> {
  const mode = config.QUEEN_METRICS_AUTH;
  if (mode === 'none') return;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (mode === 'token') {
    // Hashing first makes both sides 32 bytes, so the comparison's time says nothing of the length.
    if (bearer !== undefined && timingSafeEqual(digest(bearer), digest(config.QUEEN_METRICS_TOKEN ?? ''))) return;
    throw new ApiError(
      'metrics_unauthorized',
      bearer === undefined
        ? '/metrics needs "Authorization: Bearer <QUEEN_METRICS_TOKEN>" (QUEEN_METRICS_AUTH=token)'
        : '/metrics: the bearer token is not QUEEN_METRICS_TOKEN',
      { headers: { 'www-authenticate': 'Bearer realm="metrics"' } },
    );
  }
  const principal = await verify(authorization);
  if (principal.tenant !== config.QUEEN_OPERATOR_TENANT || !principal.grants.has('admin')) {
    throw new ApiError(
      'grant_missing',
      `/metrics needs a credential of the operator tenant "${config.QUEEN_OPERATOR_TENANT}" with the admin grant (QUEEN_METRICS_AUTH=operator)`,
    );
  }
}
