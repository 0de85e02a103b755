import type { ApiRequest } from './api-request.js'
import { jsonResponse, type ApiResponse } from './api-response.js'
import { isJson, renderBrowsablePage } from './html/browsable-page.js'
import { DEFAULT_PARSED_MEDIA_TYPES } from './request/body-parser.js'
import { errorResponse } from './exception-handler.js'
import { ConfigurationError, MethodNotAllowed, NotFound } from './errors.js'
import { Policies, type PolicyOptions } from './policies.js'
import { MEDIA_TYPES, negotiateFormat, type Format } from './request/negotiation.js'
import { parseQuery } from './request/url-decoding.js'
import { checkHost, consultedVary, runPolicies, type PolicyProgress, type RequestContext } from './pipeline.js'
import { actionsFor, type ViewActions } from './action-metadata.js'
import type { OperationDescription } from './openapi-types.js'
import type { ViewInfo } from './policy-context.js'
import { finishPrepared, prepareFinish, type PreparedFinish } from './response-finishing.js'
import type { Settings } from './settings.js'
import type { MaybePromise } from './maybe-promise.js'

/** How many distinct Accept headers a view remembers the negotiated format of. */
const MAX_NEGOTIATED = 64

/** Each format's name in `?format=`, as DRF's renderers call them (`BrowsableAPIRenderer.format` is `api`). */
const FORMAT_NAMES: Readonly<Record<Format, string>> = { json: 'json', html: 'api' }

/** One request's progress through a view: what its answer's headers depend on. */
interface ViewRun extends PolicyProgress {
  /** The negotiated format, once negotiation succeeded. */
  format: Format | null
  /** Whether a handler was reached (the view's own `vary` then applies). */
  handled: boolean
}

/** Methods a view can implement; HEAD and OPTIONS are answered automatically. */
export type HandlerMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
/** The handler methods, in the order `Allow` lists them. */
export const HANDLER_METHODS: readonly HandlerMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

export type { RequestContext } from './pipeline.js'

/**
 * A view's handler for one method. `validate`, when present, is called once when the view
 * is declared, with the view's resolved settings, so a handler's configuration mistake (a
 * cursor ordering its source cannot order by) stops start-up instead of failing requests.
 */
export type Handler = ((ctx: RequestContext) => MaybePromise<ApiResponse>) & {
  readonly validate?: (settings: Settings, where: string) => void
  /** What OpenAPI documents say about the handler's operation (`listHandler` sets it). */
  readonly openApi?: OperationDescription
}

/** Per-view options. Keys shared with `Settings` replace the global value. */
export interface ViewOptions extends PolicyOptions {
  readonly description?: string
  readonly handlers: Partial<Readonly<Record<HandlerMethod, Handler>>>
  /**
   * Formats the view renders, in preference order, as DRF's `renderer_classes`. With `html`,
   * a client negotiating `text/html` gets every JSON answer of the view, errors included,
   * shown on an HTML page with the same status and headers. @default ['json', 'html']
   */
  readonly formats?: readonly Format[]
  /**
   * Request headers the view's handlers read beyond what its schemes read (a logout reads the
   * session cookie whoever is authenticated): added to `Vary` of every answer a handler gave
   * (errors it threw included), after `Accept`, as Django's middleware adds them, and not
   * shown on the HTML page. @default []
   */
  readonly vary?: readonly string[]
  /**
   * Runs on every answer of the view, a refusal or an error included, before the
   * `responseMiddleware` setting: what a Django view decorator such as `ensure_csrf_cookie`
   * does. Must not throw. @default none
   */
  readonly finish?: (req: ApiRequest, response: ApiResponse) => ApiResponse
  /**
   * The media types OPTIONS lists under `parses`, in DRF's `parser_classes` order (the body
   * parser itself is the same for every view). @default JSON, urlencoded form, multipart form
   */
  readonly parses?: readonly string[]
  /**
   * The fields OPTIONS describes under `actions` for the methods that take a body (DRF's
   * `SimpleMetadata` reading the view's serializer): shown for a method the view has a
   * handler for, when the requester's permissions let them send it. @default none
   */
  readonly actions?: ViewActions
  /**
   * A detail view's look-up of the object its PUT acts on (returns it, or throws `NotFound`),
   * for OPTIONS: as DRF's `determine_actions` calls `get_object()`, PUT is shown under
   * `actions` only when the object is found and `checkObjectPermissions` passes for a PUT.
   * @default none (PUT is shown on the request's permissions alone)
   */
  readonly actionsObject?: (ctx: RequestContext) => Promise<unknown>
}

/** A configured DRF-style view: call `handle` with an `ApiRequest`, get an `ApiResponse`. Never throws. */
export class ApiView {
  /** The view's policies: authentication, permissions and throttles, with its resolved settings. */
  readonly policies: Policies
  readonly allowedMethods: readonly string[]
  /** The `Allow` header every response carries, built once. */
  private readonly allow: string
  private readonly options: ViewOptions
  /** The formats the view renders, in preference order (`['json', 'html']` unless declared). */
  readonly formats: readonly Format[]
  /** `['Accept']` when the answer depends on the Accept header (more than one format), built once. */
  private readonly varyAccept: readonly string[]
  /** Negotiated formats by Accept header (clients send few distinct ones), bounded. */
  private readonly negotiated = new Map<string, Format>()
  /** The view's `finish`, then the `responseMiddleware` setting: fixed when the view is declared. */
  private readonly finishSteps: Settings['responseMiddleware']
  /** `Allow`/`Vary` prepared per outcome (`consulted * 2 + handled`), filled on first use. */
  private readonly finishes: (PreparedFinish | undefined)[] = []
  /** The format negotiated for a request without an Accept header. */
  private negotiatedWithoutAccept: Format | undefined

  constructor(global: Settings, options: ViewOptions) {
    const { handlers, formats } = options
    const where = `view "${options.name ?? 'unnamed'}"`
    this.policies = new Policies(global, options, { kind: 'view', otherKeys: ['description', 'handlers', 'formats', 'vary', 'finish', 'parses', 'actions', 'actionsObject'] })
    const middleware = this.policies.settings.responseMiddleware
    this.finishSteps = options.finish === undefined ? middleware : [{ process: options.finish }, ...middleware]
    if (typeof handlers !== 'object' || handlers === null || Object.keys(handlers).length === 0) {
      throw new ConfigurationError('ERR_NO_HANDLERS', `${where} has no handlers`)
    }
    // A misspelt or lower-case method would otherwise make every request a 405.
    for (const [method, handler] of Object.entries(handlers)) {
      if (!HANDLER_METHODS.includes(method as HandlerMethod)) {
        throw new ConfigurationError('ERR_INVALID_HANDLER', `${where}: unknown handler "${method}" (one of ${HANDLER_METHODS.join(', ')})`)
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
    for (const handler of Object.values(handlers)) handler?.validate?.(this.policies.settings, where)
    this.options = options
    this.formats = Object.freeze([...(formats ?? ['json', 'html'])])
    this.varyAccept = Object.freeze(this.formats.length > 1 ? ['Accept'] : [])
    const methods: string[] = HANDLER_METHODS.filter((m) => handlers[m] !== undefined)
    if (handlers.GET !== undefined) methods.push('HEAD')
    methods.push('OPTIONS')
    this.allowedMethods = Object.freeze(methods)
    this.allow = methods.join(', ')
  }

  /** What policies are told about this view. */
  get info(): ViewInfo {
    return this.policies.info
  }

  /** The options the view was declared with (name, description, handlers), for documentation generators. */
  get declared(): ViewOptions {
    return this.options
  }

  /** The view's resolved settings (global ⊕ per-view). */
  get settings(): Settings {
    return this.policies.settings
  }

  /**
   * Runs DRF's dispatch: negotiate → authenticate → permissions → throttles → handler. The
   * answer is synchronous when every step was (no promise is made for it); `await` reads both.
   * Never throws.
   */
  handle(req: ApiRequest): MaybePromise<ApiResponse> {
    const run: ViewRun = { consulted: 0, user: undefined, format: null, handled: false }
    let answer: MaybePromise<ApiResponse>
    try {
      answer = this.dispatch(req, run)
    } catch (error) {
      answer = this.answerError(error, req, run)
    }
    if (answer instanceof Promise) {
      return answer.then(
        (response) => this.finish(req, response, run),
        (error: unknown) => this.finish(req, this.answerError(error, req, run), run),
      )
    }
    return this.finish(req, answer, run)
  }

  /** The view's answer to an error (its `Vary` is added by `finish`). */
  private answerError(error: unknown, req: ApiRequest, run: ViewRun): ApiResponse {
    return errorResponse(error, { request: req, settings: this.policies.settings, user: run.user })
  }

  /** DRF's `finalize_response`, then the view's `finish` and the response middleware. */
  private finish(req: ApiRequest, answer: ApiResponse, run: ViewRun): ApiResponse {
    let response = answer
    // DRF's finalize_response: once a renderer was negotiated, errors are rendered by it too.
    // A failed negotiation (406, unknown ?format=) answers with the first renderer, JSON.
    if (run.format === 'html' && isJson(response)) {
      try {
        response = this.page(req, response, this.varyAccept)
      } catch (error) {
        // A body JSON cannot serialise (a BigInt, a cycle): the logged 500, in JSON.
        response = this.answerError(error, req, run)
      }
    }
    // A session answer depends on the Cookie header: shared caches must know.
    let finished = finishPrepared(response, req.method, this.prepared(run))
    const steps = this.finishSteps
    for (let i = 0; i < steps.length; i++) {
      try {
        finished = (steps[i] as (typeof steps)[number]).process(req, finished)
      } catch (error) {
        // A middleware that breaks its contract costs its headers, never the answer.
        this.policies.settings.logError(error, { method: req.method, path: req.url.pathname })
      }
    }
    return finished
  }

  /** The `Allow` and `Vary` headers for a run's outcome (schemes consulted, handler reached), built once each. */
  private prepared(run: ViewRun): PreparedFinish {
    const index = run.consulted * 2 + (run.handled ? 1 : 0)
    let prepared = this.finishes[index]
    if (prepared === undefined) {
      const schemes = consultedVary(this.policies.settings.authentication, run.consulted)
      prepared = prepareFinish(this.allow, [...this.varyAccept, ...schemes, ...(run.handled ? (this.options.vary ?? []) : [])])
      this.finishes[index] = prepared
    }
    return prepared
  }

  /**
   * The HTML page showing `response`, with the headers DRF's page shows: the response's own,
   * `Allow` and `Vary: Accept` (what the consulted schemes add to `Vary` is sent, not shown,
   * as Django's middleware adds `Cookie` after DRF rendered the page).
   */
  private page(req: ApiRequest, response: ApiResponse, accept: readonly string[]): ApiResponse {
    const own = response.headers.filter(([name]) => name.toLowerCase() === 'vary').flatMap(([, value]) => value.split(','))
    const vary: string[] = []
    for (const value of [...own, ...accept].map((v) => v.trim())) {
      if (value !== '' && !vary.some((seen) => seen.toLowerCase() === value.toLowerCase())) vary.push(value)
    }
    return renderBrowsablePage({
      title: this.options.name ?? 'View',
      method: req.method,
      url: req.url,
      response,
      shownHeaders: [['Allow', this.allow], ...(vary.length > 0 ? [['Vary', vary.join(', ')] as const] : [])],
    })
  }

  private dispatch(req: ApiRequest, run: ViewRun): MaybePromise<ApiResponse> {
    // The host is checked before negotiation, as Django checks it before any view code.
    checkHost(req, this.policies.settings)
    const format = this.negotiate(req)
    run.format = format
    const ctx = runPolicies(req, this.policies.settings, this.policies.info, run, format, req.params)
    return ctx instanceof Promise ? ctx.then((passed) => this.respond(req, passed, run)) : this.respond(req, ctx, run)
  }

  /** The method's handler (or the OPTIONS metadata) once the policies passed. */
  private respond(req: ApiRequest, ctx: RequestContext, run: ViewRun): MaybePromise<ApiResponse> {
    const method = req.method === 'HEAD' ? 'GET' : req.method
    if (method === 'OPTIONS') return this.metadata(ctx)
    const handler = this.options.handlers[method as HandlerMethod]
    if (handler === undefined) throw new MethodNotAllowed(req.method)
    run.handled = true
    return handler(ctx)
  }

  /** The response format: the Accept header's, remembered per header value when no `?format=` overrides it. */
  private negotiate(req: ApiRequest): Format {
    const accept = req.headers.get('accept')
    // Only a query that may spell `format` (possibly percent-encoded) can override.
    const search = req.url.search
    if (search !== '' && (search.includes('format') || search.includes('%'))) return negotiateFormat(accept, this.formatsFor(req))
    // No header is `*/*`; an empty one is another value (406).
    if (accept === null) return (this.negotiatedWithoutAccept ??= negotiateFormat(null, this.formats))
    const known = this.negotiated.get(accept)
    if (known !== undefined) return known
    const format = negotiateFormat(accept, this.formats)
    if (this.negotiated.size < MAX_NEGOTIATED) this.negotiated.set(accept, format)
    return format
  }

  /**
   * DRF's `?format=` override (URL_FORMAT_OVERRIDE): only the named renderer is
   * considered; an unknown name is a 404, answered before authentication. The names are
   * DRF's renderers' `format`s: `json`, and `api` for the HTML view (`html` is none of
   * them). Of a repeated `format` the last counts, as Django's `QueryDict.get` reads it;
   * an empty one is no override.
   */
  private formatsFor(req: ApiRequest): readonly Format[] {
    const wanted = parseQuery(req.url.search).get('format')?.at(-1)
    if (wanted === undefined || wanted === '') return this.formats
    const formats = this.formats.filter((f) => FORMAT_NAMES[f] === wanted)
    if (formats.length === 0) throw new NotFound()
    return formats
  }

  private async metadata(ctx: RequestContext): Promise<ApiResponse> {
    const actions = await actionsFor(this.options.actions, (method) => this.options.handlers[method] !== undefined, ctx, this.policies.settings, this.options.actionsObject)
    return jsonResponse(200, {
      name: this.options.name ?? 'View',
      description: this.options.description ?? '',
      renders: this.formats.map((f) => MEDIA_TYPES[f]),
      parses: this.options.parses ?? DEFAULT_PARSED_MEDIA_TYPES,
      ...(actions === null ? {} : { actions }),
    })
  }
}
