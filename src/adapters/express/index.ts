import express from 'express'
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response, Router } from 'express'
import type { ApiRequest, RequestData } from '../../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../../core/api-response.js'
import type { Api } from '../../core/api.js'
import { errorResponse, INVALID_HOST_RESPONSE, refusalResponse } from '../../core/exception-handler.js'
import { ConfigurationError, MalformedRequest, ParseError, PayloadTooLarge, type ApiError } from '../../core/errors.js'
import { Policies, resolvePolicies, type PolicyOptions, type PoliciesResult } from '../../core/policies.js'
import type { RequestContext } from '../../core/pipeline.js'
import { DEFAULT_SETTINGS } from '../../core/settings.js'
import { createApiRequest } from '../../core/request/request-factory.js'
import { routeParamsMatch, type Route } from '../../core/route.js'
import type { User } from '../../core/user.js'
import type { ApiView } from '../../core/view.js'
import { parseBody } from '../../core/request/body-parser.js'
import { describedRoutes, markPolicies, markView, type DescribedRoute, type FrameworkRoute, type OpenApiRouteOptions } from '../../openapi/policy-route.js'
import { headerBag, readBody, writeNodeResponse } from '../node-http/node-io.js'
import { requestUrlOf } from '../../core/request/request-url.js'

declare global {
  // Declaration merging is how Express types what middleware adds to its request.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The user gatehouse's `policies()` identified (the anonymous user when none). */
      user?: User
      /** What the authenticating scheme returned beside the user (a token row…), or `null`. */
      auth?: unknown
      /** The guarded request's context (settings, authenticator, Vary, params): see `requestContext`. */
      gatehouse?: RequestContext
    }
  }
}

/** How the Express adapter reads a request. */
export interface ExpressOptions {
  /**
   * Largest body read when no Express body parser ran first, in bytes; larger answers 413.
   * @default 1048576 (1 MiB)
   */
  readonly bodyLimit?: number
  /** Path parameters to use instead of the matched route's (`req.params`). */
  readonly params?: Readonly<Record<string, string>>
}

const DEFAULT_BODY_LIMIT = 1024 * 1024

/** The first value of a possibly comma-joined header. */
function firstValue(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim()
}

/**
 * The absolute request URL: `req.originalUrl` keeps the mount path (`app.use('/api', router)`),
 * protocol and host come from Express so `trust proxy` applies (X-Forwarded-Proto / -Host only
 * from a trusted peer). `null` when the host is missing or not a bare `host[:port]`.
 */
export function requestUrl(req: Request): URL | null {
  let host = req.get('host')
  const trust = req.app.get('trust proxy fn') as ((address: string | undefined, hop: number) => boolean) | undefined
  if (trust?.(req.socket.remoteAddress, 0) === true) host = firstValue(req.get('x-forwarded-host')) ?? host
  return requestUrlOf(req.protocol, host, req.originalUrl)
}

/** Express's body parsers (`express.json()`, `urlencoded()`…) mark the request or drain its stream. */
function bodyConsumed(req: Request): boolean {
  return (req as { _body?: unknown })._body === true || req.readableEnded
}

/** The already-parsed body: objects as the parser left them, raw/text parser output as bytes for the core. */
function parsedBody(req: Request): { readonly data: RequestData } | null {
  if (!bodyConsumed(req)) return null
  const body: unknown = req.body
  // A drained stream with nothing left on the request: no body, never a wait for bytes that will not come.
  if (body === undefined) return { data: null }
  if (Buffer.isBuffer(body) || typeof body === 'string') return null
  return { data: body }
}

/** The raw bytes of a body a raw/text parser read, or the stream itself. */
function rawBody(req: Request, limit: number): Promise<Uint8Array | null> {
  const body: unknown = req.body
  if (bodyConsumed(req)) {
    if (Buffer.isBuffer(body)) return Promise.resolve(body.length === 0 ? null : new Uint8Array(body))
    if (typeof body === 'string') return Promise.resolve(body === '' ? null : new TextEncoder().encode(body))
    return Promise.resolve(null)
  }
  return readBody(req, limit)
}

/**
 * Translates an Express request into an `ApiRequest`: the URL keeps the mount path and
 * honours `trust proxy`; a body Express already parsed is used as is, otherwise the stream is
 * read (with `bodyLimit`) when a view asks. `null` when the host cannot form a URL (answer 400).
 */
export function toApiRequest(req: Request, options: ExpressOptions = {}): ApiRequest | null {
  const url = requestUrl(req)
  if (url === null) return null
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: req.method,
    url,
    headers: headerBag(req.headers),
    remoteAddress: req.socket.remoteAddress ?? null,
    params: options.params ?? (req.params as Record<string, string>),
    parsedBody: () => parsedBody(req),
    readBody: () => rawBody(req, limit),
  })
}

/**
 * Sends an `ApiResponse` (a view's answer, `paginatedList`'s page) with Express: each
 * `Set-Cookie` on its own line, bare `application/json` as DRF sends it.
 */
export function sendApiResponse(res: Response, response: ApiResponse): void {
  // An Express response is a node:http one: `res.end`, not `res.send` (send would add
  // `; charset=utf-8` and an ETag). Never throws: a header Node refuses is a logged 500.
  writeNodeResponse(res, response, (res.req as Request | undefined)?.gatehouse?.settings ?? DEFAULT_SETTINGS)
}

/** Options of `policies(api, options)`: the route's policies, how its body is read, what OpenAPI says of it. */
interface PoliciesOptions extends PolicyOptions, ExpressOptions, OpenApiRouteOptions {}

const ADAPTER_KEYS: readonly (keyof PoliciesOptions)[] = ['bodyLimit', 'openApi']

/**
 * Middleware that runs a route's policies (allowed host, authentication, permissions,
 * throttles) before the app's own handler, and puts the result on `req.user`, `req.auth`
 * and `req.gatehouse`. A refusal answers in DRF's shape (status, `{"detail"}`,
 * `WWW-Authenticate`, `Retry-After`, `Vary`). Errors the app's handler throws go to Express's
 * error chain: install `errorHandler()` after your routes to answer them in DRF's shape.
 *
 * @example
 * router.get('/books/:id', policies(api, { permissions: [new IsAuthenticated()] }), (req, res) => { … })
 */
export function policies(routePolicies: Policies, options?: ExpressOptions & OpenApiRouteOptions): RequestHandler
export function policies(api: Api, options?: PoliciesOptions): RequestHandler
export function policies(source: Api | Policies, options: PoliciesOptions = {}): RequestHandler {
  const routePolicies = resolvePolicies(source, options, ADAPTER_KEYS)
  const adapterOptions: ExpressOptions = options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }
  const proceed = (result: PoliciesResult, req: Request, res: Response, next: NextFunction): void => {
    if (result.response !== null) return writeNodeResponse(res, result.response, routePolicies.settings)
    const context = result.context
    req.user = context.user
    req.auth = context.auth
    req.gatehouse = context
    for (const header of context.vary) res.vary(header)
    next()
  }
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const result = routePolicies.run(toApiRequest(req, adapterOptions))
    // Policies that all answered synchronously go on now, without a promise of ours (Express
    // catches what the next handlers throw; a throw here reaches its error chain too).
    if (!(result instanceof Promise)) return proceed(result, req, res, next)
    // Never an unhandled rejection: what is left goes to Express's error chain.
    result.then((settled) => proceed(settled, req, res, next)).catch(next)
  }
  return markPolicies(middleware, routePolicies, { ...options, name: source instanceof Policies ? undefined : options.name })
}

/**
 * The handler context of a request `policies()` let through, for the core's helpers that take
 * one (`paginatedList(requestContext(req), …)`): JSON format, the route's params. Throws when
 * `policies()` did not run on the request (a wiring mistake, a 500 from the error handler).
 */
export function requestContext(req: Request): RequestContext {
  const context = req.gatehouse
  if (context === undefined) throw new Error('gatehouse: requestContext() needs policies() to have run on this request')
  return context
}

/** An error from Express's body parsers (`http-errors` with a `type`). */
interface BodyParserError {
  readonly type: string
  readonly status: number
  readonly body?: unknown
}

function isBodyParserError(error: unknown): error is BodyParserError {
  if (typeof error !== 'object' || error === null) return false
  const { type, status } = error as { type?: unknown; status?: unknown }
  return typeof type === 'string' && type.startsWith('entity.') && typeof status === 'number' && status >= 400 && status < 500
}

/** The `ApiError` DRF raises for a body-parser failure: re-parsed by the core for DRF's exact JSON message. */
async function bodyParserError(req: Request, error: BodyParserError): Promise<ApiError> {
  if (error.type === 'entity.too.large') return new PayloadTooLarge()
  if (error.type === 'entity.parse.failed' && typeof error.body === 'string') {
    try {
      await parseBody(req.get('content-type') ?? null, new TextEncoder().encode(error.body))
    } catch (parseError) {
      if (parseError instanceof ParseError) return parseError
    }
  }
  return new MalformedRequest(error.status)
}

/**
 * Error middleware answering every error in DRF's shape: an error of a guarded request through
 * the route's exception handler (with its `Vary`), a failure of Express's body parsers
 * (malformed JSON from `express.json()`, a body over its limit) as DRF answers it, and any
 * other error as a logged `500 {"detail": "A server error occurred."}` (through `api`'s
 * settings when given: `exceptionHandler`, `logError`). Install it after your routes.
 *
 * @example
 * app.use(errorHandler(api))
 */
export function errorHandler(api?: Api): ErrorRequestHandler {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(error)
    const scope = req.gatehouse ?? { request: toApiRequest(req), settings }
    if (isBodyParserError(error)) {
      bodyParserError(req, error).then((refusal) => sendApiResponse(res, refusalResponse(refusal, scope)), next)
      return
    }
    sendApiResponse(res, errorResponse(error, scope))
  }
}

/** The part of an Express app or router `mountRoutes` uses. */
export type RouteTarget = Pick<Router, 'use'>

/** Options of `mountRoutes`. */
export interface MountOptions extends ExpressOptions {
  /**
   * A path the routes are mounted under (`'/v1'`: `route('/books/', …)` answers `/v1/books/`),
   * as `target.use(prefix, …)` would mount them. @default none
   */
  readonly prefix?: string
}

const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })

/**
 * DRF's `404 {"detail": "Not found."}` as Express middleware: `app.use(notFound)` after your
 * routes and before `errorHandler`, for the requests no route answered.
 */
export function notFound(_req: Request, res: Response): void {
  sendApiResponse(res, NOT_FOUND)
}

/** The Express app `drfRouting` configures: its settings and its router (Express 4 keeps it in `_router`). */
interface RoutedApp {
  set(name: string, value: unknown): unknown
  use(handler: RequestHandler): unknown
  readonly lazyrouter?: () => void
  readonly _router?: { readonly strict?: unknown; readonly caseSensitive?: unknown }
  readonly router?: { readonly strict?: unknown; readonly caseSensitive?: unknown }
}

/**
 * Applies DRF's routing rules to an Express app: routes match case-sensitively (`/API/BOOKS/`
 * is not `/api/books/`) and with the trailing slash significant (`strict routing`), and on the
 * percent-decoded path as Django routes it (`/api/who%61mi/` and `/api%2Fwhoami/` are
 * `/api/whoami/`; a malformed escape matches nothing). Links keep the path the client sent
 * (`req.originalUrl`). Call it on a new app, before any route or middleware (Express fixes its
 * router's options when the first one is added; a later call throws). Finish the app with
 * `app.use(notFound)` and `app.use(errorHandler(api))` after your routes.
 *
 * @example
 * const app = drfRouting(express())
 * mountRoutes(app, [route('/api/books/:id/', book)])
 * app.use(notFound)
 * app.use(errorHandler(api))
 */
export function drfRouting<A extends express.Application>(app: A): A {
  const routed = app as unknown as RoutedApp
  routed.set('strict routing', true)
  routed.set('case sensitive routing', true)
  // Express 4 makes its router on demand (`lazyrouter`); Express 5's `app.router` getter does.
  routed.lazyrouter?.()
  const router = typeof routed.lazyrouter === 'function' ? routed._router : routed.router
  if (router?.strict !== true || router.caseSensitive !== true) {
    throw new ConfigurationError('ERR_INVALID_ROUTE', 'drfRouting(app) must be called before any route or middleware is added to the app')
  }
  routed.use(decodedPaths)
  return app
}

/**
 * Puts the percent-decoded path, re-encoded segment by segment, where Express's router looks:
 * Express routes on the raw path, Django on the decoded one (`%2F` included).
 */
function decodedPaths(req: Request, _res: Response, next: NextFunction): void {
  const url = req.url
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  if (path.includes('%')) {
    try {
      req.url = decodeURIComponent(path).split('/').map(encodeURIComponent).join('/') + (query === -1 ? '' : url.slice(query))
    } catch {
      // A malformed escape matches no route: the app's 404 answers it.
    }
  }
  next()
}

/**
 * Mounts DRF-style views: each route answers every method with its view (which answers
 * 405 itself), with Express's `:name` parameters passed into `ApiRequest.params`. The routes
 * sit on a router of their own that matches as DRF's URL conf does, whatever `target`'s
 * options: case-sensitively (`/API/WHOAMI/` is not `/api/whoami/`) and with the trailing
 * slash significant. Requests no route matches go on to `target`'s next handler. `options.prefix`
 * mounts them under a path (`{ prefix: '/v1' }`).
 */
export function mountRoutes<T extends RouteTarget>(target: T, routes: readonly Route[], options: MountOptions = {}): T {
  const drfRoutes = express.Router({ caseSensitive: true, strict: true })
  for (const r of routes) {
    const handler = viewHandler(r.view, options)
    // A parameter the route's converter refuses (`{ id: 'int' }` and `/abc/`): no route, as in Django.
    drfRoutes.all(r.path, r.params === undefined ? handler : (req, res, next) => (routeParamsMatch(r, req.params as Record<string, string>) ? handler(req, res, next) : next()))
  }
  const prefix = (options.prefix ?? '').replace(/\/$/, '')
  if (prefix === '') target.use(drfRoutes)
  else target.use(prefix, drfRoutes)
  return target
}

/** A request handler answering with `view` (which never throws); a malformed host is a 400. */
export function viewHandler(view: ApiView, options: ExpressOptions = {}): RequestHandler {
  return markView((req: Request, res: Response, next: NextFunction): void => {
    const request = toApiRequest(req, options)
    if (request === null) return sendApiResponse(res, INVALID_HOST_RESPONSE)
    const write = (response: ApiResponse): void => {
      // A body left unread past the limit is not drained: the connection closes instead.
      if (response.status === 413 && !req.complete) res.setHeader('Connection', 'close')
      // Never throws: a header Node refuses is a 500 logged through the view's `logError`.
      writeNodeResponse(res, response, view.settings)
    }
    let answer: ApiResponse | Promise<ApiResponse>
    try {
      answer = view.handle(request) as ApiResponse | Promise<ApiResponse>
    } catch (error) {
      return next(error)
    }
    // A view that answered synchronously is written now, without a promise of ours.
    if (answer instanceof Promise) answer.then(write).catch(next)
    else write(answer)
  }, view)
}

/** The parts of Express's (4 and 5) router layers `openApiRoutes` reads. */
interface RouterLayer {
  readonly route?: { readonly path?: unknown; readonly stack?: readonly { readonly method?: string; readonly handle?: unknown }[] }
  readonly handle?: { readonly stack?: unknown }
  /** Express 5 (router 2.3 and later): the path the layer was declared with. */
  readonly rawPath?: unknown
  /** Express 4: the layer's regular expression (`^\/api\/?(?=\/|$)` for `use('/api', …)`). */
  readonly regexp?: RegExp & { readonly fast_slash?: boolean }
  /** Express 5: `use('/', …)` or `use(router)`. */
  readonly slash?: boolean
}

/** `prefix` + `path`, one `/` between them. */
function joinPath(prefix: string, path: string): string {
  return prefix === '' ? path : `${prefix.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}`
}

/** The path a router layer is mounted at (`app.use('/api', router)`), or `null` when only its regular expression says. */
function mountPath(layer: RouterLayer): string | null {
  if (layer.slash === true || layer.regexp?.fast_slash === true) return ''
  if (typeof layer.rawPath === 'string') return layer.rawPath === '/' ? '' : layer.rawPath
  const source = layer.regexp?.source
  // Express 4 writes `use('/api', …)` as `^\/api\/?(?=\/|$)`: a literal path, escaped.
  const end = '\\/?(?=\\/|$)'
  if (source === undefined || !source.startsWith('^') || !source.endsWith(end)) return null
  const literal = source.slice(1, -end.length)
  let path = ''
  for (let i = 0; i < literal.length; i++) {
    const c = literal[i] as string
    if (c === '\\') path += literal[++i] ?? ''
    else if ('()[]{}*+?|^$.'.includes(c)) return null
    else path += c
  }
  return path
}

/** The layers of an Express 4 or 5 app, or of a router. */
function stackOf(target: object): readonly RouterLayer[] {
  const t = target as { readonly stack?: unknown; readonly _router?: { readonly stack?: unknown } }
  if (Array.isArray(t.stack)) return t.stack as RouterLayer[]
  // Express 4 keeps the app's router in `_router`; Express 5's `app.router` getter creates it (Express 4's throws).
  if (Array.isArray(t._router?.stack)) return t._router.stack as RouterLayer[]
  if ('_router' in t) return []
  try {
    const router = (target as { readonly router?: { readonly stack?: unknown } }).router
    return Array.isArray(router?.stack) ? (router.stack as RouterLayer[]) : []
  } catch {
    return []
  }
}

/** Every route of `target` and of the routers mounted in it, as `describedRoutes` reads them. */
function frameworkRoutes(target: object, prefix: string): FrameworkRoute[] {
  const out: FrameworkRoute[] = []
  for (const layer of stackOf(target)) {
    const route = layer.route
    if (route !== undefined) {
      const paths = Array.isArray(route.path) ? (route.path as unknown[]) : [route.path]
      for (const path of paths) {
        if (typeof path !== 'string') continue
        for (const sub of route.stack ?? []) out.push({ method: sub.method ?? 'ALL', path: joinPath(prefix, path), handlers: [sub.handle] })
      }
      continue
    }
    const router = layer.handle
    if (router === undefined || !Array.isArray(router.stack)) continue
    const mount = mountPath(layer)
    const inner = frameworkRoutes(router, joinPath(prefix, mount ?? ''))
    if (mount === null && describedRoutes(inner).length > 0) {
      throw new ConfigurationError(
        'ERR_INVALID_ROUTE',
        'openApiRoutes: a router with described routes is mounted at a pattern whose path Express does not keep (or on Express 5 with router before 2.3): call openApiRoutes(router, { prefix }) for it',
      )
    }
    out.push(...inner)
  }
  return out
}

/** Options of `openApiRoutes`. */
export interface OpenApiRoutesOptions {
  /** The path `target` is mounted at (`'/api'` for a router used as `app.use('/api', router)`). @default '' */
  readonly prefix?: string
}

/**
 * The routes of an Express app or router that OpenAPI documents describe (`openApiDocument`,
 * `openApiView`'s `routes`): each view `mountRoutes` mounted, and each route of your own with
 * a `policies()` middleware (`router.get('/books/:id', policies(api, { openApi }), …)`), for
 * its method, with the paths of the routers it is mounted in (`app.use('/api', router)`).
 * A `policies()` on every method (`router.use`, `router.all`) describes no operation. Call
 * it once the routes are registered: in `openApiView({ routes: () => openApiRoutes(app) })`,
 * on the first request.
 *
 * @example
 * const doc = openApiDocument(openApiRoutes(app), { info: { title: 'Books', version: '1' } })
 */
export function openApiRoutes(target: RouteTarget, options: OpenApiRoutesOptions = {}): DescribedRoute[] {
  return describedRoutes(frameworkRoutes(target, options.prefix ?? ''))
}
