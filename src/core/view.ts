import type { ApiRequest } from './api-request.js'
import { jsonResponse, type ApiResponse } from './api-response.js'
import { schemeName, type AuthenticationScheme } from '../authentication/authentication-scheme.js'
import type { Paginator } from '../pagination/paginator.js'
import type { Permission } from '../permissions/permission.js'
import type { Throttle } from '../throttling/throttle.js'
import { renderApiError, SERVER_ERROR_BODY } from './exception-handler.js'
import {
  ConfigurationError,
  isApiError,
  MethodNotAllowed,
  NotAuthenticated,
  NotFound,
  PermissionDenied,
  ServiceUnavailable,
  Throttled,
  WrappedSchemeError,
  ParseError,
} from './errors.js'
import { isStoreUnavailable, STORE_UNAVAILABLE_DETAIL } from './store-faults.js'
import { MEDIA_TYPES, negotiateFormat, type Format } from './negotiation.js'
import { DEFAULT_PARSED_MEDIA_TYPES } from './body-parser.js'
import type { PolicyContext, ViewInfo } from './policy-context.js'
import { validateSettings, type Settings } from './settings.js'
import { isAllowedHost } from './allowed-hosts.js'
import type { User } from './user.js'

/** Methods a view can implement; HEAD and OPTIONS are answered automatically. */
export type HandlerMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
const METHOD_ORDER: readonly HandlerMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/** Everything a handler knows about the request once the policies have passed. */
export interface RequestContext extends PolicyContext {
  /** The scheme that authenticated the request, or `null`. */
  readonly authenticator: AuthenticationScheme | null
  /** The negotiated response format. */
  readonly format: Format
  /** The view's resolved settings (global ⊕ per-view). */
  readonly settings: Settings
}

export type Handler = (ctx: RequestContext) => Promise<ApiResponse>

/** Per-view options. Keys shared with `Settings` replace the global value. */
export interface ViewOptions {
  /** Shown in OPTIONS metadata and logs. */
  readonly name?: string
  readonly description?: string
  readonly handlers: Partial<Readonly<Record<HandlerMethod, Handler>>>
  readonly authentication?: readonly AuthenticationScheme[]
  readonly permissions?: readonly Permission[]
  readonly throttles?: readonly Throttle[]
  readonly pagination?: Paginator | null
  readonly pageSize?: number | null
  readonly throttleScope?: string
  /** Formats the view renders, in preference order. @default ['json'] */
  readonly formats?: readonly Format[]
}

/** The result of identifying a request. */
export interface Identity {
  readonly user: User
  readonly auth: unknown
  readonly authenticator: AuthenticationScheme | null
}

/**
 * DRF's `perform_authentication`: schemes in order; the first pair wins; `null`
 * tries the next; an `ApiError` stops everything; any other throw is wrapped so it
 * surfaces as a server error naming the scheme.
 */
export async function authenticate(
  req: ApiRequest,
  settings: Settings,
  consulted?: AuthenticationScheme[],
): Promise<Identity> {
  for (const scheme of settings.authentication) {
    consulted?.push(scheme)
    let result
    try {
      result = await scheme.authenticate(req)
    } catch (error) {
      if (isApiError(error)) throw error
      throw new WrappedSchemeError(schemeName(scheme), error)
    }
    if (result !== null) return { user: result.user, auth: result.auth, authenticator: scheme }
  }
  return { user: settings.unauthenticatedUser(), auth: settings.unauthenticatedToken(), authenticator: null }
}

/** A configured view: call `handle` with an `ApiRequest`, get an `ApiResponse`. Never throws. */
export class ApiView {
  readonly info: ViewInfo
  readonly settings: Settings
  readonly allowedMethods: readonly string[]
  /** The `Allow` header every response carries, built once. */
  private readonly allowHeader: readonly [string, string]
  private readonly options: ViewOptions
  private readonly formats: readonly Format[]

  constructor(global: Settings, options: ViewOptions) {
    const { name, description, handlers, throttleScope, formats, ...overrides } = options
    void description
    const where = `view "${name ?? 'unnamed'}"`
    validateSettings(overrides as Record<string, unknown>, where)
    if (typeof handlers !== 'object' || handlers === null || Object.keys(handlers).length === 0) {
      throw new ConfigurationError('ERR_NO_HANDLERS', `${where} has no handlers`)
    }
    // A misspelt or lower-case method would otherwise make every request a 405.
    for (const [method, handler] of Object.entries(handlers)) {
      if (!METHOD_ORDER.includes(method as HandlerMethod)) {
        throw new ConfigurationError('ERR_INVALID_HANDLER', `${where}: unknown handler "${method}" (one of ${METHOD_ORDER.join(', ')})`)
      }
      if (typeof handler !== 'function') {
        throw new ConfigurationError('ERR_INVALID_HANDLER', `${where}: handler "${method}" must be a function`)
      }
    }
    if (
      formats !== undefined &&
      (!Array.isArray(formats) || formats.length === 0 || !formats.every((f) => Object.hasOwn(MEDIA_TYPES, f)))
    ) {
      throw new ConfigurationError('ERR_INVALID_SETTING', `${where}: setting "formats" must be a non-empty list of ${Object.keys(MEDIA_TYPES).join(', ')}`)
    }
    const merged: Record<string, unknown> = { ...global }
    // Copied and frozen: a caller mutating its own array later cannot change the view.
    for (const [k, v] of Object.entries(overrides)) {
      if (v !== undefined) merged[k] = Array.isArray(v) ? Object.freeze([...(v as unknown[])]) : v
    }
    this.settings = Object.freeze(merged) as unknown as Settings
    this.options = options
    this.formats = Object.freeze([...(formats ?? ['json'])])
    this.info = Object.freeze({ name: name ?? 'view', throttleScope: throttleScope ?? null })
    const methods: string[] = METHOD_ORDER.filter((m) => handlers[m] !== undefined)
    if (handlers.GET !== undefined) methods.push('HEAD')
    methods.push('OPTIONS')
    this.allowedMethods = Object.freeze(methods)
    this.allowHeader = Object.freeze(['Allow', methods.join(', ')] as const)
  }

  /** Runs DRF's dispatch: negotiate → authenticate → permissions → throttles → handler. */
  async handle(req: ApiRequest): Promise<ApiResponse> {
    const consulted: AuthenticationScheme[] = []
    let response: ApiResponse
    try {
      response = await this.dispatch(req, consulted)
    } catch (error) {
      response = this.renderError(error, req)
    }
    const body = req.method === 'HEAD' ? undefined : response.body
    // One Vary header (Django's patch_vary_headers order): the handler's own values,
    // Accept when the view has several renderers, then what the consulted schemes
    // read (a session answer depends on the Cookie header: shared caches must know).
    const varyValues: string[] = []
    const headers: (readonly [string, string])[] = []
    for (const header of response.headers) {
      if (header[0].toLowerCase() === 'vary') varyValues.push(...header[1].split(','))
      else headers.push(header)
    }
    if (this.formats.length > 1) varyValues.push('Accept')
    for (const scheme of consulted) varyValues.push(...(scheme.vary ?? []))
    const vary: string[] = []
    for (const value of varyValues.map((v) => v.trim()).filter((v) => v !== '')) {
      if (!vary.some((v) => v.toLowerCase() === value.toLowerCase())) vary.push(value)
    }
    return {
      status: response.status,
      headers: [...headers, this.allowHeader, ...(vary.length > 0 ? [['Vary', vary.join(', ')] as const] : [])],
      body,
    }
  }

  private async dispatch(req: ApiRequest, consulted: AuthenticationScheme[]): Promise<ApiResponse> {
    const { allowedHosts } = this.settings
    if (allowedHosts !== null && !isAllowedHost(req.url.hostname, allowedHosts)) throw new ParseError('Invalid Host header.', 'invalid_host')
    const format = negotiateFormat(req.headers.get('accept'), this.formatsFor(req))
    const identity = await authenticate(req, this.settings, consulted)
    const ctx: RequestContext = {
      request: req,
      user: identity.user,
      auth: identity.auth,
      authenticator: identity.authenticator,
      view: this.info,
      format,
      settings: this.settings,
    }
    for (const permission of this.settings.permissions) {
      if (!(await permission.hasPermission(ctx))) {
        throw identity.authenticator === null && this.settings.authentication.length > 0
          ? new NotAuthenticated()
          : new PermissionDenied(permission.message, permission.code)
      }
    }
    const waits: number[] = []
    let throttled = false
    for (const throttle of this.settings.throttles) {
      const decision = await throttle.check(ctx)
      if (!decision.allowed) {
        throttled = true
        if (decision.waitSeconds !== null) waits.push(decision.waitSeconds)
      }
    }
    if (throttled) throw new Throttled(waits.length > 0 ? Math.max(...waits) : null)

    const method = req.method === 'HEAD' ? 'GET' : req.method
    if (method === 'OPTIONS') return this.metadata()
    const handler = this.options.handlers[method as HandlerMethod]
    if (handler === undefined) throw new MethodNotAllowed(req.method)
    return handler(ctx)
  }

  /**
   * DRF's `?format=` override (URL_FORMAT_OVERRIDE): only the named renderer is
   * considered (`api` is DRF's name for the HTML view); an unknown name is a 404.
   */
  private formatsFor(req: ApiRequest): readonly Format[] {
    const wanted = req.url.searchParams.get('format')
    if (wanted === null || wanted === '') return this.formats
    const formats = this.formats.filter((f) => f === wanted || (f === 'html' && wanted === 'api'))
    if (formats.length === 0) throw new NotFound()
    return formats
  }

  private metadata(): ApiResponse {
    return jsonResponse(200, {
      name: this.options.name ?? 'View',
      description: this.options.description ?? '',
      renders: this.formats.map((f) => MEDIA_TYPES[f]),
      parses: DEFAULT_PARSED_MEDIA_TYPES,
    })
  }

  private renderError(error: unknown, req: ApiRequest): ApiResponse {
    const rendered = renderApiError(error, req, this.settings.authentication)
    if (rendered !== null) return rendered
    this.settings.logError(error, { method: req.method, path: req.url.pathname })
    // A store that is down or slow is not a bug: 503, and the drivers reconnect by themselves.
    if (isStoreUnavailable(error)) {
      const unavailable = new ServiceUnavailable(STORE_UNAVAILABLE_DETAIL, 'store_unavailable')
      return jsonResponse(unavailable.status, { detail: unavailable.detail })
    }
    return jsonResponse(500, SERVER_ERROR_BODY)
  }
}
