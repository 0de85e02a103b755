import type { ApiRequest } from './api-request.js'
import type { Format } from './request/negotiation.js'
import { schemeName, type Authenticated, type AuthenticationScheme } from './authentication-scheme.js'
import { isAllowedHost } from './allowed-hosts.js'
import { isApiError, NotAuthenticated, ParseError, PermissionDenied, Throttled, WrappedSchemeError } from './errors.js'
import { isPromise, thenMaybe, type MaybePromise } from './maybe-promise.js'
import type { Permission } from './permission.js'
import type { PolicyContext, ViewInfo } from './policy-context.js'
import type { Settings } from './settings.js'
import type { Throttle, ThrottleDecision } from './throttle.js'
import type { User } from './user.js'

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

/** Django's `ALLOWED_HOSTS` check: throws `400 Invalid Host header.` for another host. */
export function checkHost(req: ApiRequest, settings: Settings): void {
  const { allowedHosts } = settings
  if (allowedHosts !== null && !isAllowedHost(req.url.hostname, allowedHosts)) throw new ParseError('Invalid Host header.', 'invalid_host')
}

/** A route's policies as the pipeline runs them, with what can be worked out once per route. */
export interface PipelineRoute {
  /** The route's resolved settings (global ⊕ per-route). */
  readonly settings: Settings
  readonly view: ViewInfo
  /** `varyAfter[n]`: the `Vary` values of the route's first `n` schemes, frozen. */
  readonly varyAfter: readonly (readonly string[])[]
}

/** The route's `PipelineRoute`, built when the route is declared (never per request). */
export function pipelineRoute(settings: Settings, view: ViewInfo): PipelineRoute {
  const schemes = settings.authentication
  const varyAfter: (readonly string[])[] = []
  for (let n = 0; n <= schemes.length; n++) varyAfter.push(Object.freeze(schemes.slice(0, n).flatMap((scheme) => scheme.vary ?? [])))
  return Object.freeze({ settings, view, varyAfter: Object.freeze(varyAfter) })
}

/**
 * One request's pass through its route's policies, made by the caller (one object per
 * request): what the steps read, and how far they got, which the caller needs even when a
 * step throws.
 */
export interface PolicyRun {
  readonly request: ApiRequest
  readonly route: PipelineRoute
  /** The negotiated format (`'json'` in middleware style); `null` is read as `'json'`. */
  format: Format | null
  /** How many of the route's schemes were consulted: their `Vary` values are owed even when a later step throws. */
  consulted: number
  /** The request's user once authentication finished, for the exception handler (`ExceptionContext.user`). */
  user: User | undefined
}

/**
 * DRF's `initial()`: authentication (the schemes in order; the first pair wins; `null` tries
 * the next; an `ApiError` stops everything; any other throw is wrapped so it surfaces as a
 * server error naming the scheme), permissions and throttles, in that order (the caller has
 * checked the host with `checkHost`). Returns the request's context, or throws the `ApiError`
 * to answer with; a promise of them only when a step answered with a promise.
 */
export function runPolicies(run: PolicyRun): MaybePromise<RequestContext> {
  // For schemes, which see the request alone (a failed-login throttle finds the client with it).
  if (run.request.notes !== undefined) run.request.notes.numProxies = run.route.settings.numProxies
  return authenticate(run, 0)
}

/** DRF's `perform_authentication`, from the `i`-th scheme on. */
function authenticate(run: PolicyRun, i: number): MaybePromise<RequestContext> {
  const schemes = run.route.settings.authentication
  if (i === schemes.length) return authenticated(run, null)
  run.consulted = i + 1
  const scheme = schemes[i] as AuthenticationScheme
  const found = callScheme(scheme, run.request)
  if (!isPromise(found)) return schemeAnswered(found, run, i)
  // One continuation for both outcomes (no promise more than the scheme's): only the
  // scheme's own rejection is wrapped, not what the permissions after it throw.
  return found.then(
    (answer) => schemeAnswered(answer, run, i),
    (error: unknown) => {
      throw wrapSchemeError(scheme, error)
    },
  )
}

function schemeAnswered(found: Authenticated | null, run: PolicyRun, i: number): MaybePromise<RequestContext> {
  return found === null ? authenticate(run, i + 1) : authenticated(run, found)
}

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

/** Authentication is over (`found`: what the last consulted scheme returned, `null`: anonymous). */
function authenticated(run: PolicyRun, found: Authenticated | null): MaybePromise<RequestContext> {
  const ctx = contextOf(run, found)
  run.user = ctx.user
  return checkPermissions(ctx, 0)
}

/**
 * The request's context once authenticated. One object per request, its fields in one order
 * (`format` and `params` included, so a handler's context is no copy of it).
 */
function contextOf(run: PolicyRun, found: Authenticated | null): RequestContext {
  const { request, route } = run
  const { settings, view } = route
  const vary = route.varyAfter[run.consulted] as readonly string[]
  const format = run.format ?? 'json'
  return found === null
    ? { request, user: settings.unauthenticatedUser(), auth: settings.unauthenticatedToken(), authenticator: null, credentialExpiresAt: null, view, settings, vary, format, params: request.params }
    : {
        request,
        user: found.user,
        auth: found.auth,
        authenticator: settings.authentication[run.consulted - 1] as AuthenticationScheme,
        credentialExpiresAt: found.expiresAt ?? null,
        view,
        settings,
        vary,
        format,
        params: request.params,
      }
}

/** DRF's `check_permissions`, from the `i`-th permission on: the first that refuses answers. */
function checkPermissions(ctx: RequestContext, i: number): MaybePromise<RequestContext> {
  const permissions = ctx.settings.permissions
  if (i === permissions.length) return ctx.settings.throttles.length === 0 ? ctx : checkThrottles(ctx, 0, undefined)
  return thenMaybe((permissions[i] as Permission).hasPermission(ctx), permissionAnswered, ctx, i)
}

function permissionAnswered(allowed: boolean, ctx: RequestContext, i: number): MaybePromise<RequestContext> {
  if (!allowed) throw denial(ctx, ctx.settings.permissions[i] as Permission)
  return checkPermissions(ctx, i + 1)
}

/** DRF's permission_denied(): an anonymous request to a view with schemes is "not authenticated". */
function denial(ctx: RequestContext, permission: Permission): Error {
  if (ctx.authenticator === null && ctx.settings.authentication.length > 0) return new NotAuthenticated()
  return new PermissionDenied(permission.message, permission.code, { headers: permission.deniedHeaders?.(ctx) })
}

/**
 * DRF's `check_throttles`, from the `i`-th throttle on: every throttle is consulted, one after
 * another (a throttle that records a hit sees the earlier ones' outcome in order), and the
 * longest wait is announced. `wait` so far: `undefined` none refused, `null` refused without
 * a known wait, else the longest known wait.
 */
function checkThrottles(ctx: RequestContext, i: number, wait: number | null | undefined): MaybePromise<RequestContext> {
  const throttles = ctx.settings.throttles
  if (i === throttles.length) {
    if (wait !== undefined) throw new Throttled(wait)
    return ctx
  }
  return thenMaybe((throttles[i] as Throttle).check(ctx), throttleAnswered, ctx, i, wait)
}

function throttleAnswered(decision: ThrottleDecision, ctx: RequestContext, i: number, wait: number | null | undefined): MaybePromise<RequestContext> {
  return checkThrottles(ctx, i + 1, decision.allowed ? wait : longer(wait, decision.waitSeconds))
}

/** The longest of the waits known so far and a refusing throttle's (`null`: it names none). */
function longer(wait: number | null | undefined, seconds: number | null): number | null {
  if (seconds === null) return wait ?? null
  return wait === undefined || wait === null ? seconds : Math.max(wait, seconds)
}
