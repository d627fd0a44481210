// Credentials: JWT bearer tokens verified statelessly with jose — HS256 with QUEEN_JWT_SECRET,
// or RS/PS/ES/EdDSA with QUEEN_JWT_PUBLIC_KEY (PEM) or QUEEN_JWT_JWKS_URL. Claims: sub, tenant,
// grants ⊆ {produce, consume, read, admin}.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { tenantName } from './contract/common.ts';
import { ConfigError } from './config.ts';
import { ApiError } from './errors.ts';
import { GRANTS, type Grant } from './grants.ts';

export { GRANTS, type Grant };

/** Instants past year 9999 (or not finite, like 1e309) are no instants: such a token is refused. */
const LAST_INSTANT_S = 253_402_300_799;
/** How far ahead of this broker's clock a token's iat may be (the issuer's clock skew). */
const IAT_SKEW_S = 60;

const claimsSchema = z.object({
  sub: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters'),
  tenant: tenantName.optional(),
  grants: z.array(z.enum(GRANTS)).max(4).optional(),
  // Queen's own tokens carry a `role` instead of grants (read only with QUEEN_TENANTLESS_TOKEN_TENANT).
  role: z.unknown().optional(),
  exp: z.number().int().min(0).max(LAST_INSTANT_S, 'must be an instant before year 10000').optional(),
  iat: z
    .number()
    .int()
    .min(0)
    .refine((iat) => iat <= Date.now() / 1000 + IAT_SKEW_S, 'must not be in the future')
    .optional(),
});

export interface Principal {
  sub: string;
  tenant: string;
  grants: ReadonlySet<Grant>;
}

/**
 * The grants of a Queen token's `role` (Queen's access levels), for a token without a tenant
 * claim taken as QUEEN_TENANTLESS_TOKEN_TENANT's. `admin` adds the admin grant, which still counts
 * only when that tenant is the operator tenant.
 */
export const QUEEN_ROLE_GRANTS: Readonly<Record<string, readonly Grant[]>> = {
  'read-only': ['read'],
  'read-write': ['produce', 'consume', 'read'],
  admin: ['produce', 'consume', 'read', 'admin'],
};

export interface AuthConfig {
  /** The tenant of tokens that carry no tenant claim; unset: such tokens are refused. */
  QUEEN_TENANTLESS_TOKEN_TENANT?: string;
  QUEEN_JWT_SECRET?: string;
  QUEEN_JWT_PUBLIC_KEY?: string;
  QUEEN_JWT_JWKS_URL?: string;
}

export type Verifier = ((authorization: string | undefined) => Promise<Principal>) & {
  /** Settles when the verification key is usable; rejects at boot for an unusable public key. */
  ready: Promise<void>;
};

export function createVerifier(cfg: AuthConfig): Verifier {
  let key: Promise<Uint8Array | KeyObject | JWTVerifyGetKey>;
  let algorithms: string[];
  if (cfg.QUEEN_JWT_JWKS_URL) {
    key = Promise.resolve(createRemoteJWKSet(new URL(cfg.QUEEN_JWT_JWKS_URL)));
    algorithms = ['RS256', 'ES256', 'EdDSA', 'PS256'];
  } else if (cfg.QUEEN_JWT_PUBLIC_KEY) {
    // One key object serves every algorithm of its family: an RSA key verifies RS256 and PS256.
    const pem = cfg.QUEEN_JWT_PUBLIC_KEY;
    const families: Record<string, string[]> = { rsa: ['RS256', 'PS256'], 'rsa-pss': ['PS256'], ec: ['ES256'], ed25519: ['EdDSA'] };
    let publicKey: KeyObject | undefined;
    try {
      publicKey = createPublicKey(pem);
    } catch {
      // refused below
    }
    const family = publicKey && families[publicKey.asymmetricKeyType ?? ''];
    if (!publicKey || !family) {
      key = Promise.reject(new ConfigError('QUEEN_JWT_PUBLIC_KEY is not a PEM public key (SPKI) for RS256, PS256, ES256 or EdDSA'));
      key.catch(() => {}); // reported through `ready`
      algorithms = [];
    } else {
      key = Promise.resolve(publicKey);
      algorithms = family;
    }
  } else if (cfg.QUEEN_JWT_SECRET) {
    key = Promise.resolve(new TextEncoder().encode(cfg.QUEEN_JWT_SECRET));
    algorithms = ['HS256'];
  } else {
    throw new Error('no JWT verification key: set QUEEN_JWT_SECRET, QUEEN_JWT_PUBLIC_KEY or QUEEN_JWT_JWKS_URL');
  }

  const verified = new VerifiedTokens();
  const verify = async (authorization: string | undefined): Promise<Principal> => {
    if (!authorization) throw new ApiError('unauthenticated', 'missing Authorization header: send "Authorization: Bearer <token>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw new ApiError('unauthenticated', 'Authorization header must be "Bearer <token>"');
    const token = m[1];
    const known = verified.get(token);
    if (known) return known;
    let payload: unknown;
    try {
      const k = await key;
      ({ payload } = await jwtVerify(token, k as Uint8Array, { algorithms }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new ApiError('token_expired', 'token expired: mint a new one');
      // The key set could not be fetched: not the caller's fault, and retrying may help.
      if (err instanceof joseErrors.JWKSTimeout || (cfg.QUEEN_JWT_JWKS_URL && !(err instanceof joseErrors.JOSEError))) {
        throw new ApiError(
          'auth_unavailable',
          'the token signing keys cannot be fetched right now; retry shortly',
          { retryAfter: 5 },
          { cause: err },
        );
      }
      throw new ApiError('token_invalid', 'token is malformed or its signature does not verify');
    }
    const claims = claimsSchema.safeParse(payload);
    if (!claims.success) {
      const issue = claims.error.issues[0];
      throw new ApiError('token_invalid', `token claim ${issue.path.join('.') || '(claims)'} is invalid: ${issue.message}`);
    }
    const principal = principalOf(claims.data, cfg.QUEEN_TENANTLESS_TOKEN_TENANT);
    verified.set(token, principal, claims.data.exp);
    return principal;
  };
  return Object.assign(verify, { ready: key.then(() => undefined) });
}

/**
 * The principal of verified claims. A token without a tenant claim is refused unless the cell names
 * a tenant for such tokens (QUEEN_TENANTLESS_TOKEN_TENANT); then it is that tenant's, and when it
 * carries no grants either, its Queen `role` says them (QUEEN_ROLE_GRANTS). A token that names a
 * tenant must carry grants.
 */
function principalOf(claims: z.infer<typeof claimsSchema>, tenantless: string | undefined): Principal {
  const tenant = claims.tenant ?? tenantless;
  if (tenant === undefined) {
    throw new ApiError(
      'token_invalid',
      'token claim tenant is invalid: required (this cell names no tenant for tokens without one: QUEEN_TENANTLESS_TOKEN_TENANT)',
    );
  }
  const fromRole = claims.tenant === undefined && typeof claims.role === 'string' ? QUEEN_ROLE_GRANTS[claims.role] : undefined;
  const grants = claims.grants ?? fromRole;
  if (grants === undefined) {
    const roles = claims.tenant === undefined ? ` (or a role: ${Object.keys(QUEEN_ROLE_GRANTS).join(', ')})` : '';
    throw new ApiError('token_invalid', `token claim grants is invalid: required${roles}`);
  }
  return { sub: claims.sub, tenant, grants: new Set(grants) };
}

/**
 * Tokens whose signature and claims verified, for a minute (never past their `exp`): a client
 * sends the same token on every request, and verifying it costs more than the peek it carries
 * (even HS256 costs CPU on every request; docs/benchmarks.md). The minute bounds how long a token keeps working
 * after its key leaves a JWKS or the secret is rotated (a broker restart forgets every entry). At
 * most MAX entries; past that the oldest goes first. A token that fails is never kept, so it
 * fails the same way every time.
 */
export class VerifiedTokens {
  static readonly TTL_MS = 60_000;
  static readonly MAX = 10_000;
  private readonly entries = new Map<string, { principal: Principal; until: number }>();

  get(token: string): Principal | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    if (Date.now() < e.until) return e.principal;
    this.entries.delete(token); // verified again from scratch: token_expired once its exp passed
    return undefined;
  }

  set(token: string, principal: Principal, exp: number | undefined): void {
    if (this.entries.size >= VerifiedTokens.MAX) this.entries.delete(this.entries.keys().next().value as string);
    const until = Date.now() + VerifiedTokens.TTL_MS;
    this.entries.set(token, { principal, until: exp === undefined ? until : Math.min(until, exp * 1000) });
  }
}

export interface MintOptions {
  tenant: string;
  sub: string;
  grants: Grant[];
  /** Lifetime, e.g. '30d', '1h'; omitted = no expiry. */
  expiresIn?: string;
}

/** Mints an HS256 token (operators' CLI, the embedded dev token, tests). */
export async function mintToken(secret: string, o: MintOptions): Promise<string> {
  const jwt = new SignJWT({ tenant: o.tenant, grants: o.grants }).setProtectedHeader({ alg: 'HS256' }).setSubject(o.sub).setIssuedAt();
  if (o.expiresIn) jwt.setExpirationTime(o.expiresIn);
  return jwt.sign(new TextEncoder().encode(secret));
}
