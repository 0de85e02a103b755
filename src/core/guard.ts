import type { ApiRequest } from './api-request.js'
import { jsonResponse, type ApiResponse } from './api-response.js'
import type { AuthenticationScheme } from './authentication-scheme.js'
import { ConfigurationError, isApiError } from './errors.js'
import { SERVER_ERROR_BODY } from './exception-handler.js'
import { isStoreUnavailable } from './store-faults.js'
import type { HtmlTemplates, Paginator } from './paginator.js'
import type { Permission } from './permission.js'
import { runPolicies, type RequestState } from './pipeline.js'
import type { ViewInfo } from './policy-context.js'
import { validateSettings, type Settings } from './settings.js'
import type { Throttle } from './throttle.js'

/**
 * Per-route policy options. Each key set here replaces (never merges with) the global
 * setting of the same name, as a DRF view's class attribute does.
 */
export interface GuardOptions {
  /** Shown in logs, OPTIONS metadata and configuration errors. */
  readonly name?: string
  readonly authentication?: readonly AuthenticationScheme[]
  readonly permissions?: readonly Permission[]
  readonly throttles?: readonly Throttle[]
  /** Scope for `ScopedRateThrottle`. */
  readonly throttleScope?: string
  readonly pagination?: Paginator | null
  readonly pageSize?: number | null
  /** Replacements for the built-in page-control templates on this route (see `Settings.htmlTemplates`). */
  readonly htmlTemplates?: HtmlTemplates
}

const ROUTE_SETTINGS = ['authentication', 'permissions', 'throttles', 'pagination', 'pageSize', 'htmlTemplates'] as const
const GUARD_KEYS: readonly string[] = [...ROUTE_SETTINGS, 'name', 'throttleScope']

/** How a `Guard` names itself in configuration errors, and which other option keys its owner reads. */
export interface GuardDeclaration {
  /** @default 'route' */
  readonly kind?: string
  /** Option keys besides the guard's own that are not typos (a view's `handlers`). */
  readonly otherKeys?: readonly string[]
}

/**
 * The policies of one route, resolved once when the route is declared: authentication,
 * permissions and throttles (DRF's `initial()`), and the rendering of errors (DRF's
 * exception handler). Framework adapters run `check()` before the app's own handler;
 * `ApiView` runs it before its handlers.
 */
export class Guard {
  readonly info: ViewInfo
  readonly settings: Settings

  constructor(global: Settings, options: GuardOptions, declaration: GuardDeclaration = {}) {
    const where = `${declaration.kind ?? 'route'} "${options.name ?? 'unnamed'}"`
    const known = [...GUARD_KEYS, ...(declaration.otherKeys ?? [])]
    for (const key of Object.keys(options)) {
      // A misspelt key (`permision`) would otherwise silently leave the route unprotected.
      if (!known.includes(key)) throw new ConfigurationError('ERR_UNKNOWN_SETTING', `${where}: unknown setting "${key}"`)
    }
    const overrides: Record<string, unknown> = {}
    for (const key of ROUTE_SETTINGS) if (options[key] !== undefined) overrides[key] = options[key]
    validateSettings(overrides, where)
    if (options.throttleScope !== undefined && (typeof options.throttleScope !== 'string' || options.throttleScope === '')) {
      throw new ConfigurationError('ERR_INVALID_SETTING', `${where}: setting "throttleScope" must be a non-empty string`)
    }
    const merged: Record<string, unknown> = { ...global }
    // Copied and frozen: a caller mutating its own array later cannot change the route.
    for (const [k, v] of Object.entries(overrides)) merged[k] = Array.isArray(v) ? Object.freeze([...(v as unknown[])]) : v
    this.settings = Object.freeze(merged) as unknown as Settings
    this.info = Object.freeze({ name: options.name ?? 'view', throttleScope: options.throttleScope ?? null })
    // Mistakes a route can make (a throttle scope with no rate) stop start-up, not requests.
    for (const throttle of this.settings.throttles) throttle.validateRoute?.(this.info)
  }

  /**
   * Runs the route's policies: allowed host, authentication, permissions, throttles. Returns
   * the request's state, or throws the `ApiError` to answer with (render it with
   * `renderError`). `consulted` collects the schemes tried, for `Vary`.
   */
  check(req: ApiRequest, consulted?: AuthenticationScheme[]): Promise<RequestState> {
    return runPolicies(req, this.settings, this.info, consulted)
  }

  /**
   * The response for an error thrown while serving this route, through the
   * `exceptionHandler` setting; `null` for an error it does not own (a framework adapter
   * passes that one on to the app's own error handling).
   */
  renderError(error: unknown, req: ApiRequest): ApiResponse | null {
    const rendered = this.settings.exceptionHandler(error, { request: req, authentication: this.settings.authentication })
    // A store fault answered 503: one line per request (and its stack once per outage).
    if (rendered?.status === 503 && isStoreUnavailable(error)) {
      this.settings.logStoreFault(error, { method: req.method, path: req.url.pathname })
    }
    return rendered
  }

  /** `renderError`, or a logged `500 {"detail": "A server error occurred."}`. Never throws. */
  renderErrorOr500(error: unknown, req: ApiRequest): ApiResponse {
    let rendered: ApiResponse | null
    try {
      rendered = this.renderError(error, req)
    } catch (handlerError) {
      this.settings.logError(handlerError, { method: req.method, path: req.url.pathname })
      rendered = null
    }
    // Anything that is not an ApiError is logged, even when rendered; a store fault's 503 was
    // logged by renderError, one line per request rather than a stack each.
    if (!isApiError(error) && !(rendered?.status === 503 && isStoreUnavailable(error))) {
      this.settings.logError(error, { method: req.method, path: req.url.pathname })
    }
    if (rendered !== null) return rendered
    return jsonResponse(500, SERVER_ERROR_BODY)
  }
}
