import type { ErrorHeader } from '../core/errors.js'
import type { Permission } from '../core/permission.js'
import type { PolicyContext } from '../core/policy-context.js'
import { accessTokenOf, realmOf } from './access-token.js'
import { bearerChallenge, checkedScope } from './challenge.js'

/** The methods that read (DRF's `SAFE_METHODS`), which `TokenHasReadWriteScope` lets through on its read scope. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The 403's `WWW-Authenticate` for a token that lacks `scopes` (RFC 6750 §3.1); none for a request without one. */
function insufficientScope(ctx: PolicyContext, scopes: readonly string[]): readonly ErrorHeader[] {
  const token = accessTokenOf(ctx.auth)
  if (token === null) return []
  return [['WWW-Authenticate', bearerChallenge(realmOf(token), { error: 'insufficient_scope', scope: scopes.join(' ') })]]
}

function checkedScopes(scopes: readonly string[]): readonly string[] {
  return Object.freeze(scopes.map(checkedScope))
}

/**
 * django-oauth-toolkit's `TokenHasScope`: the request's OAuth 2.0 access token (from
 * `OAuth2Authentication`) was granted every one of `scopes`. Without a token the request is
 * refused as any permission refuses an anonymous one (401 with the scheme's challenge);
 * with a token lacking a scope, 403 with `WWW-Authenticate: Bearer realm="api",
 * error="insufficient_scope", scope="…"` (RFC 6750 §3.1). List it in the route's permissions
 * (they must all pass, as DRF's list does): inside `and()`/`or()` the header is not carried.
 *
 * @example
 * api.view({ handlers, authentication: [oauth2], permissions: [new TokenHasScope('notes:read')] })
 */
export class TokenHasScope implements Permission {
  readonly scopes: readonly string[]

  constructor(...scopes: string[]) {
    this.scopes = checkedScopes(scopes)
  }

  hasPermission(ctx: PolicyContext): boolean {
    return accessTokenOf(ctx.auth)?.hasScopes(this.scopes) === true
  }

  deniedHeaders(ctx: PolicyContext): readonly ErrorHeader[] {
    return insufficientScope(ctx, this.scopes)
  }

  openApiAllowsAnonymous(): boolean {
    return false
  }

  openApiScopes(): readonly string[] {
    return this.scopes
  }
}

/** Options of `TokenHasReadWriteScope`. */
export interface ReadWriteScopes {
  /** Needed by `GET`, `HEAD` and `OPTIONS`. @default 'read' */
  readonly read?: string
  /** Needed by every other method. @default 'write' */
  readonly write?: string
}

/**
 * django-oauth-toolkit's `TokenHasReadWriteScope`: reads (`GET`, `HEAD`, `OPTIONS`) need the
 * `read` scope, everything else the `write` scope; refusals as `TokenHasScope`'s.
 */
export class TokenHasReadWriteScope implements Permission {
  readonly read: string
  readonly write: string

  constructor(scopes: ReadWriteScopes = {}) {
    this.read = checkedScope(scopes.read ?? 'read')
    this.write = checkedScope(scopes.write ?? 'write')
  }

  private required(method: string): string {
    return SAFE.has(method.toUpperCase()) ? this.read : this.write
  }

  hasPermission(ctx: PolicyContext): boolean {
    return accessTokenOf(ctx.auth)?.hasScopes([this.required(ctx.request.method)]) === true
  }

  deniedHeaders(ctx: PolicyContext): readonly ErrorHeader[] {
    return insufficientScope(ctx, [this.required(ctx.request.method)])
  }

  openApiAllowsAnonymous(): boolean {
    return false
  }

  openApiScopes(method: string): readonly string[] {
    return [this.required(method)]
  }
}
