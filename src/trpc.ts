// The building blocks every router uses, and nothing else: the procedure bases and the gates they
// apply in the contract's order (boot flag → cluster block → auth → grant). The boot flag is
// applied by the HTTP layer before any procedure runs (src/http/rest.ts).
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Grant, Principal } from './auth.ts';
import type { RequestContext } from './context.ts';
import { ApiError, apiError } from './errors.ts';
import { tagRequestTenant } from './tracing.ts';

const t = initTRPC.meta<OpenApiMeta>().context<RequestContext>().create({
  // Errors are rendered by the HTTP layer from the ApiError cause; the tRPC shape is unused there.
  isDev: false,
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Rethrows ApiErrors (from services) as TRPCErrors so they keep their code and status. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof ApiError) {
    const cause = result.error.cause;
    throw apiError(cause.code, cause.message, cause.details, cause.cause);
  }
  return result;
});

export const publicProcedure = t.procedure.use(mapErrors);

/** Authenticated: verifies the bearer token and provisions its tenant on first sight. */
export const authedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const principal = await ctx.verify(ctx.authorization);
  tagRequestTenant(principal.tenant);
  await ctx.tenants.ensure(principal.tenant);
  return next({ ctx: { ...ctx, principal } });
});

export function requireGrant(principal: Principal, grant: Grant): void {
  // Grants are independent: admin manages tenants and the cluster, it does not imply produce.
  if (!principal.grants.has(grant)) {
    throw new ApiError('grant_missing', `this credential lacks the "${grant}" grant`);
  }
}

/** Produce class: cluster produce block (503) before auth, then the produce grant. */
export const produceProcedure = publicProcedure
  .use(async ({ ctx, next }) => {
    const flags = await ctx.cluster.get();
    if (flags.produceBlocked) {
      throw new ApiError('produce_blocked', 'the cluster is not accepting new messages right now; retry later', {
        retryAfter: 5,
      });
    }
    return next();
  })
  .use(async ({ ctx, next }) => {
    const principal = await ctx.verify(ctx.authorization);
    tagRequestTenant(principal.tenant);
    requireGrant(principal, 'produce');
    await ctx.tenants.ensure(principal.tenant);
    return next({ ctx: { ...ctx, principal } });
  });

export const grantProcedure = (grant: Grant) =>
  authedProcedure.use(({ ctx, next }) => {
    requireGrant(ctx.principal, grant);
    return next();
  });

export const readProcedure = grantProcedure('read');
export const consumeProcedure = grantProcedure('consume');

/**
 * The admin grant manages every tenant and the cluster, so it counts only on credentials of the
 * operator tenant (QUEEN_OPERATOR_TENANT): a tenant's own admin grant reaches nothing.
 */
export const adminProcedure = grantProcedure('admin').use(({ ctx, next }) => {
  const operator = ctx.config.QUEEN_OPERATOR_TENANT;
  if (ctx.principal.tenant !== operator) {
    throw new ApiError(
      'grant_missing',
      `the admin grant counts only on credentials of the operator tenant "${operator}" (QUEEN_OPERATOR_TENANT); this one is of tenant "${ctx.principal.tenant}"`,
    );
  }
  return next();
});
