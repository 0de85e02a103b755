import type { ApiRequest } from './api-request.js'
import type { Format } from './request/negotiation.js'
import { schemeName, type AuthenticationScheme } from './authentication-scheme.js'
import { isAllowedHost } from './allowed-hosts.js'
import { isApiError, NotAuthenticated, ParseError, PermissionDenied, Throttled, WrappedSchemeError } from './errors.js'
import type { PolicyContext, ViewInfo } from './policy-context.js'
import { rememberSettings } from './request-settings.js'
import type { Settings } from './settings.js'
import type { User } from './user.js'

/** The result of identifying a request. */
export interface Identity {
  readonly user: User
  readonly auth: unknown
  /** The scheme that authenticated the request, or `null` (anonymous). */
  readonly authenticator: AuthenticationScheme | null
  /**
   * When the request's credential expires, as its scheme said (`Authenticated.expiresAt`):
   * `null` when it does not, or for an anonymous request.
   */
  readonly credentialExpiresAt: Date | null
}

/** What a guarded request carries once its policies have passed. */
export interface RequestState extends PolicyContext {
  /** The scheme that authenticated the request, or `null`. */
  readonly authenticator: AuthenticationScheme | null
  /** When the request's credential expires (`Authenticated.expiresAt`); `null`: it does not, or anonymous. */
  readonly credentialExpiresAt: Date | null
  /** The route's resolved settings (global ⊕ per-route). */
  readonly settings: Settings
  /**
   * Request headers the answer depends on because a scheme read them (Session: `Cookie`);
   * adapters add them to the response's `Vary`.
   */
  readonly vary: readonly string[]
}

/** Everything a handler knows about the request once the policies have passed. */
export interface RequestContext extends RequestState {
  /** The negotiated response format (always `'json'` in middleware style, where the app renders). */
  readonly format: Format
  /** The route's path parameters (`/books/:id/` → `{ id: '7' }`), decoded. */
  readonly params: Readonly<Record<string, string>>
}

/**
 * DRF's `perform_authentication`: schemes in order; the first pair wins; `null`
 * tries the next; an `ApiError` stops everything; any other throw is wrapped so it
 * surfaces as a server error naming the scheme. `consulted` collects the schemes tried.
 */
export async function authenticate(
  req: ApiRequest,
  settings: Settings,
  consulted?: AuthenticationScheme[],
): Promise<Identity> {
  rememberSettings(req, settings)
  for (const scheme of settings.authentication) {
    consulted?.push(scheme)
    let result
    try {
      result = await scheme.authenticate(req)
    } catch (error) {
      if (isApiError(error)) throw error
      throw new WrappedSchemeError(schemeName(scheme), error)
    }
    if (result !== null) return { user: result.user, auth: result.auth, authenticator: scheme, credentialExpiresAt: result.expiresAt ?? null }
  }
  return { user: settings.unauthenticatedUser(), auth: settings.unauthenticatedToken(), authenticator: null, credentialExpiresAt: null }
}

/** The `Vary` values of the schemes consulted so far (kept when a later step throws). */
export function varyOf(consulted: readonly AuthenticationScheme[]): string[] {
  return consulted.flatMap((scheme) => scheme.vary ?? [])
}

/** Django's `ALLOWED_HOSTS` check: throws `400 Invalid Host header.` for another host. */
export function checkHost(req: ApiRequest, settings: Settings): void {
  const { allowedHosts } = settings
  if (allowedHosts !== null && !isAllowedHost(req.url.hostname, allowedHosts)) throw new ParseError('Invalid Host header.', 'invalid_host')
}

/**
 * DRF's `initial()`: authentication, permissions and throttles, in that order (the caller
 * has checked the host with `checkHost`). Returns the request's state, or throws the
 * `ApiError` to answer with. Pass `consulted` to learn which schemes were tried even when
 * this throws (for `Vary`).
 */
export async function runPolicies(
  req: ApiRequest,
  settings: Settings,
  view: ViewInfo,
  consulted: AuthenticationScheme[] = [],
): Promise<RequestState> {
  const identity = await authenticate(req, settings, consulted)
  const state: RequestState = { request: req, ...identity, view, settings, vary: varyOf(consulted) }
  for (const permission of settings.permissions) {
    if (!(await permission.hasPermission(state))) {
      // DRF's permission_denied(): an anonymous request to a view with schemes is "not authenticated".
      throw identity.authenticator === null && settings.authentication.length > 0
        ? new NotAuthenticated()
        : new PermissionDenied(permission.message, permission.code)
    }
  }
  // DRF's check_throttles(): every throttle is consulted; the longest wait is announced.
  const waits: number[] = []
  let throttled = false
  for (const throttle of settings.throttles) {
    const decision = await throttle.check(state)
    if (!decision.allowed) {
      throttled = true
      if (decision.waitSeconds !== null) waits.push(decision.waitSeconds)
    }
  }
  if (throttled) throw new Throttled(waits.length > 0 ? Math.max(...waits) : null)
  return state
}
