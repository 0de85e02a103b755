import type { ApiRequest } from './api-request.js'
import type { Format } from './request/negotiation.js'
import { schemeName, type Authenticated, type AuthenticationScheme } from './authentication-scheme.js'
import { isAllowedHost } from './allowed-hosts.js'
import { isApiError, NotAuthenticated, ParseError, PermissionDenied, Throttled, WrappedSchemeError } from './errors.js'
import type { MaybePromise } from './maybe-promise.js'
import type { Permission } from './permission.js'
import type { PolicyContext, ViewInfo } from './policy-context.js'
import type { Settings } from './settings.js'
import type { Throttle, ThrottleDecision } from './throttle.js'
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

/** Everything a handler knows about the request once the policies have passed. */
export interface RequestContext extends PolicyContext {
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
  /** The negotiated response format (always `'json'` in middleware style, where the app renders). */
  readonly format: Format
  /** The route's path parameters (`/books/:id/` → `{ id: '7' }`), decoded. */
  readonly params: Readonly<Record<string, string>>
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
 * Where one request's policies stand, for the caller: how many of the route's schemes were
 * consulted (their `Vary` values are owed even when a later step throws).
 */
export interface PolicyProgress {
  consulted: number
  /** The request's user once authentication finished, for the exception handler (`ExceptionContext.user`). */
  user?: User | undefined
}

/** The `Vary` values of the first `n` schemes of each authentication list, built once per list. */
const VARY_PREFIXES = new WeakMap<readonly AuthenticationScheme[], readonly (readonly string[])[]>()

/** The `Vary` values of `schemes[0..n)`, shared and frozen (built once per scheme list). */
export function consultedVary(schemes: readonly AuthenticationScheme[], n: number): readonly string[] {
  // Most views share one list (the API's): the last one asked for is checked first.
  if (schemes === lastVary.schemes) return lastVary.prefixes[n] ?? EMPTY
  let prefixes = VARY_PREFIXES.get(schemes)
  if (prefixes === undefined) {
    const built: (readonly string[])[] = []
    for (let i = 0; i <= schemes.length; i++) built.push(Object.freeze(varyOf(schemes.slice(0, i))))
    prefixes = Object.freeze(built)
    VARY_PREFIXES.set(schemes, prefixes)
  }
  lastVary = { schemes, prefixes }
  return prefixes[n] ?? EMPTY
}

let lastVary: { readonly schemes: readonly AuthenticationScheme[] | null; readonly prefixes: readonly (readonly string[])[] } = { schemes: null, prefixes: [] }

const EMPTY: readonly string[] = Object.freeze([])

/**
 * Calls one scheme; a synchronous throw that is not an `ApiError` is wrapped so it surfaces as
 * a server error naming the scheme (a rejection is wrapped where the promise is continued).
 */
function callScheme(scheme: AuthenticationScheme, req: ApiRequest): MaybePromise<Authenticated | null> {
  try {
    return scheme.authenticate(req)
  } catch (error) {
    throw wrapSchemeError(scheme, error)
  }
}

function wrapSchemeError(scheme: AuthenticationScheme, error: unknown): unknown {
  return isApiError(error) ? error : new WrappedSchemeError(schemeName(scheme), error)
}

/**
 * The request's context once every policy passed. One object per request, its fields in one
 * order (`format` and `params` included, so a handler's context is no copy of it).
 */
function contextOf(req: ApiRequest, found: Authenticated | null, scheme: AuthenticationScheme | null, view: ViewInfo, settings: Settings, vary: readonly string[], format: Format, params: Readonly<Record<string, string>>): RequestContext {
  return found === null
    ? { request: req, user: settings.unauthenticatedUser(), auth: settings.unauthenticatedToken(), authenticator: null, credentialExpiresAt: null, view, settings, vary, format, params }
    : { request: req, user: found.user, auth: found.auth, authenticator: scheme, credentialExpiresAt: found.expiresAt ?? null, view, settings, vary, format, params }
}

/**
 * DRF's `initial()`: authentication (the schemes in order; the first pair wins; `null` tries
 * the next; an `ApiError` stops everything; any other throw is wrapped so it surfaces as a
 * server error naming the scheme), permissions and throttles, in that order (the caller has
 * checked the host with `checkHost`). Returns the request's context, or throws the `ApiError`
 * to answer with (a promise of them when a step answered asynchronously: no promise is made
 * when every step answered synchronously). `progress.consulted` counts the schemes tried,
 * for `Vary`, even when this throws.
 */
export function runPolicies(
  req: ApiRequest,
  settings: Settings,
  view: ViewInfo,
  progress: PolicyProgress,
  format: Format,
  params: Readonly<Record<string, string>>,
): MaybePromise<RequestContext> {
  // For schemes, which see the request alone (a failed-login throttle finds the client with it).
  if (req.notes !== undefined) req.notes.numProxies = settings.numProxies
  return authenticateFrom(0, req, settings, view, progress, format, params)
}

function authenticateFrom(
  start: number,
  req: ApiRequest,
  settings: Settings,
  view: ViewInfo,
  progress: PolicyProgress,
  format: Format,
  params: Readonly<Record<string, string>>,
): MaybePromise<RequestContext> {
  const schemes = settings.authentication
  for (let i = start; i < schemes.length; i++) {
    const scheme = schemes[i] as AuthenticationScheme
    progress.consulted = i + 1
    const result = callScheme(scheme, req)
    if (result instanceof Promise) {
      // One continuation for both outcomes: only the scheme's own rejection is wrapped, not
      // what the permissions after it throw.
      return result.then(
        (found) =>
          found === null
            ? authenticateFrom(i + 1, req, settings, view, progress, format, params)
            : identified(progress, contextOf(req, found, scheme, view, settings, consultedVary(schemes, i + 1), format, params)),
        (error: unknown) => {
          throw wrapSchemeError(scheme, error)
        },
      )
    }
    if (result !== null) return identified(progress, contextOf(req, result, scheme, view, settings, consultedVary(schemes, i + 1), format, params))
  }
  return identified(progress, contextOf(req, null, null, view, settings, consultedVary(schemes, schemes.length), format, params))
}

/** Authentication is over: the user is noted for the exception handler, then permissions and throttles run. */
function identified(progress: PolicyProgress, ctx: RequestContext): MaybePromise<RequestContext> {
  progress.user = ctx.user
  return authorize(ctx)
}

/** Permissions, then throttles, from `index` on: synchronous while each answers synchronously. */
function authorize(ctx: RequestContext, index = 0): MaybePromise<RequestContext> {
  const permissions = ctx.settings.permissions
  for (let i = index; i < permissions.length; i++) {
    const permission = permissions[i] as Permission
    const allowed = permission.hasPermission(ctx)
    if (allowed instanceof Promise) {
      return allowed.then((yes) => {
        if (!yes) throw denial(ctx, permission)
        return authorize(ctx, i + 1)
      })
    }
    if (!allowed) throw denial(ctx, permission)
  }
  return ctx.settings.throttles.length === 0 ? ctx : throttle(ctx)
}

/** DRF's permission_denied(): an anonymous request to a view with schemes is "not authenticated". */
function denial(ctx: RequestContext, permission: Permission): Error {
  if (ctx.authenticator === null && ctx.settings.authentication.length > 0) return new NotAuthenticated()
  return new PermissionDenied(permission.message, permission.code, { headers: permission.deniedHeaders?.(ctx) })
}

/** DRF's check_throttles(): every throttle is consulted; the longest wait is announced. */
function throttle(ctx: RequestContext): MaybePromise<RequestContext> {
  const throttles = ctx.settings.throttles
  let waits: number[] | null = null
  let throttled = false
  const note = (decision: ThrottleDecision): void => {
    if (!decision.allowed) {
      throttled = true
      if (decision.waitSeconds !== null) (waits ??= []).push(decision.waitSeconds)
    }
  }
  // Consulted one after another, as DRF does: a throttle that records a hit sees the earlier ones' outcome in order.
  const from = (index: number): MaybePromise<RequestContext> => {
    for (let i = index; i < throttles.length; i++) {
      const decision = (throttles[i] as Throttle).check(ctx)
      if (decision instanceof Promise) {
        return decision.then((d) => {
          note(d)
          return from(i + 1)
        })
      }
      note(decision)
    }
    if (throttled) throw new Throttled(waits === null ? null : Math.max(...(waits as number[])))
    return ctx
  }
  return from(0)
}
