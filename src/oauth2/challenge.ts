import { ConfigurationError } from '../core/errors.js'

/** Characters a quoted-string may hold without escaping: printable ASCII but `"` and `\`. */
const QUOTABLE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/
/** RFC 6749 §3.3's scope-token (`NQCHAR`): printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/

/** The parameters of a Bearer challenge besides the realm (RFC 6750 §3). */
export interface BearerChallengeParams {
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope'
  /** Human-readable, for the developer; one of the scheme's fixed messages (never client input). */
  readonly description?: string
  /** The scopes the resource needs, space-separated. */
  readonly scope?: string
}

/**
 * `Bearer realm="api", error="…", error_description="…", scope="…"`. Every value was checked
 * to need no escaping (the realm and scopes when declared, the descriptions are the scheme's
 * own), so a value that would is dropped rather than written wrong.
 */
export function bearerChallenge(realm: string, params: BearerChallengeParams = {}): string {
  const parts = [`realm="${realm}"`]
  if (params.error !== undefined) parts.push(`error="${params.error}"`)
  if (params.description !== undefined && QUOTABLE.test(params.description)) parts.push(`error_description="${params.description}"`)
  if (params.scope !== undefined && QUOTABLE.test(params.scope)) parts.push(`scope="${params.scope}"`)
  return `Bearer ${parts.join(', ')}`
}

/** `realm` when it can be written in a challenge as is, else a `ConfigurationError`. */
export function checkedRealm(realm: string): string {
  if (!QUOTABLE.test(realm)) throw new ConfigurationError('ERR_INVALID_SETTING', `realm must be printable ASCII without '"' or '\\', got ${JSON.stringify(realm)}`)
  return realm
}

/** `scope` when it is an RFC 6749 scope token, else a `ConfigurationError`. */
export function checkedScope(scope: string): string {
  if (!SCOPE_TOKEN.test(scope)) throw new ConfigurationError('ERR_INVALID_SETTING', `a scope must be printable ASCII without spaces, '"' or '\\' (RFC 6749 §3.3), got ${JSON.stringify(scope)}`)
  return scope
}
