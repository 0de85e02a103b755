import type { ApiRequest } from './api-request.js'
import type { ApiResponse } from './api-response.js'
import type { AuthenticationScheme } from './authentication-scheme.js'
import { ConfigurationError } from './errors.js'
import { checkPageSize } from './page-size-check.js'
import { errorResponse, INVALID_HOST_RESPONSE, type ExceptionHandler } from './exception-handler.js'
import type { HtmlTemplates, Paginator } from './paginator.js'
import type { Permission } from './permission.js'
import { isPromise, type MaybePromise } from './maybe-promise.js'
import { checkHost, pipelineRoute, runPolicies, type PipelineRoute, type PolicyRun, type RequestContext } from './pipeline.js'
import type { ViewInfo } from './policy-context.js'
import { validateSettings, type Settings } from './settings.js'
import type { Throttle } from './throttle.js'

/**
 * Per-route policy options. Each key set here replaces (never merges with) the global
 * setting of the same name, as a DRF view's class attribute does.
 */
export interface PolicyOptions {
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
  /**
   * This route's exception handler, in place of the API's (a DRF view's `get_exception_handler`):
   * an HTML page's login redirect for a 401, say. @default the API's `exceptionHandler`
   */
  readonly exceptionHandler?: ExceptionHandler
}

const ROUTE_SETTINGS = ['authentication', 'permissions', 'throttles', 'pagination', 'pageSize', 'htmlTemplates', 'exceptionHandler'] as const
const POLICY_KEYS: readonly string[] = [...ROUTE_SETTINGS, 'name', 'throttleScope']

/** How a `Policies` names itself in configuration errors, and which other option keys its owner reads. */
export interface PoliciesDeclaration {
  /** @default 'route' */
  readonly kind?: string
  /** Option keys besides the policies' own that are not typos (a view's `handlers`). */
  readonly otherKeys?: readonly string[]
}

/**
 * What `Policies.run` decided: go on to the app's handler with `context`, or send `response`
 * (a refusal, already rendered with its `Vary`) and stop.
 */
export type PoliciesResult =
  | { readonly context: RequestContext; readonly response: null }
  | { readonly context: null; readonly response: ApiResponse }

/**
 * The policies of one route, resolved once when the route is declared: authentication,
 * permissions and throttles (DRF's `initial()`), and the rendering of errors (DRF's
 * exception handler). Framework adapters run `run()` before the app's own handler;
 * `ApiView` runs it before its handlers.
 */
export class Policies {
  readonly info: ViewInfo
  readonly settings: Settings
  /** What the pipeline reads of this route, worked out once. */
  private readonly route: PipelineRoute

  constructor(global: Settings, options: PolicyOptions, declaration: PoliciesDeclaration = {}) {
    const where = `${declaration.kind ?? 'route'} "${options.name ?? 'unnamed'}"`
    const known = [...POLICY_KEYS, ...(declaration.otherKeys ?? [])]
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
    checkPageSize(this.settings.pagination, this.settings.pageSize, where)
    this.info = Object.freeze({ name: options.name ?? 'view', throttleScope: options.throttleScope ?? null })
    // Mistakes a route can make (a throttle scope with no rate) stop start-up, not requests.
    for (const throttle of this.settings.throttles) throttle.validateRoute?.(this.info)
    this.route = pipelineRoute(this.settings, this.info)
  }

  /**
   * The middleware flow every adapter runs before the app's own handler: allowed host,
   * authentication, permissions, throttles. Passes with the handler's `context` (JSON format,
   * the request's params), or answers with the rendered refusal, its `Vary` naming the
   * headers the consulted schemes read; an error that is not an `ApiError` is logged and
   * answered 500. `null` (an adapter could not form the URL) is `400 Invalid Host header.`.
   * Synchronous when every policy answered synchronously. Never throws.
   */
  run(req: ApiRequest | null): MaybePromise<PoliciesResult> {
    if (req === null) return { context: null, response: INVALID_HOST_RESPONSE }
    const run = this.newRun(req)
    let context: MaybePromise<RequestContext>
    try {
      checkHost(req, this.settings)
      context = runPolicies(run)
    } catch (error) {
      return this.refusal(error, run)
    }
    if (isPromise(context)) return context.then(passed, (error: unknown) => this.refusal(error, run))
    return { context, response: null }
  }

  /** One request's pass through this route's policies (middleware style: JSON). */
  private newRun(req: ApiRequest): PolicyRun {
    return { request: req, route: this.route, format: 'json', consulted: 0, user: undefined }
  }

  private refusal(error: unknown, run: PolicyRun): PoliciesResult {
    const vary = this.route.varyAfter[run.consulted]
    return { context: null, response: errorResponse(error, { request: run.request, settings: this.settings, vary, user: run.user }) }
  }
}

/** `Policies.run`'s pass, built without a closure per request. */
const passed = (context: RequestContext): PoliciesResult => ({ context, response: null })

/**
 * What makes `Policies`: an `Api` (`createApi`). Named here by its shape so that this file does
 * not import `api.ts`, which imports it.
 */
export interface PoliciesFactory {
  policies(options?: PolicyOptions): Policies
}

/** Keys of every adapter's `policies()` options that describe the route to OpenAPI documents (`markRoute`). */
const OPENAPI_KEYS: readonly string[] = ['openApi', 'ordering', 'filters', 'search']

/**
 * The policies your adapter's `policies(source, options)` runs, resolved once when the app
 * declares the route: `source` itself when it is a `Policies`, else `source.policies(options)`
 * (an `Api`'s) with your adapter's own option keys (`bodyLimit`…, `adapterKeys`) and the
 * OpenAPI ones (`openApi`, `ordering`, `filters`, `search`) left out, so that a typo in any other key is the
 * configuration error it is on every adapter.
 *
 * @example
 * const routePolicies = resolvePolicies(source, options, ['bodyLimit'])
 */
export function resolvePolicies(source: PoliciesFactory | Policies, options: PolicyOptions, adapterKeys: readonly string[]): Policies {
  if (source instanceof Policies) return source
  const own: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(options)) if (!adapterKeys.includes(key) && !OPENAPI_KEYS.includes(key)) own[key] = value
  return source.policies(own as PolicyOptions)
}
