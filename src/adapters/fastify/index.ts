import { METHODS } from 'node:http'
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
  RouteOptions,
} from 'fastify'
import type { Api } from '../../core/api.js'
import type { ApiRequest } from '../../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../../core/api-response.js'
import { parseBody } from '../../core/request/body-parser.js'
import { errorResponse, INVALID_HOST_RESPONSE, refusalResponse } from '../../core/exception-handler.js'
import { isApiError, MalformedRequest, PayloadTooLarge, UnsupportedMediaType, type ApiError } from '../../core/errors.js'
import { Policies, resolvePolicies, type PolicyOptions } from '../../core/policies.js'
import type { RequestContext } from '../../core/pipeline.js'
import { createApiRequest, type RawRequest } from '../../core/request/request-factory.js'
import { routeParamsMatch, type Route } from '../../core/route.js'
import { routingPath, targetPath } from '../../core/request/url-decoding.js'
import { DEFAULT_SETTINGS, type Settings } from '../../core/settings.js'
import { requestUrlOf } from '../../core/request/request-url.js'
import { wireResponse } from '../../core/sendable-response.js'
import type { User } from '../../core/user.js'
import type { ApiView } from '../../core/view.js'
import { headerBag } from '../node-http/node-io.js'
import { deferBody, hasDeferredBody, hasMalformedBody, keepUnparsed, settleDeferredBody } from './deferred-bodies.js'
import { markPolicies, markView, type OpenApiRouteOptions } from '../../openapi/policy-route.js'
import { policiesSwaggerTransform, swaggerTransformFor } from './swagger-transform.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The user `policies()` identified (the anonymous user when none); unset on routes it does not run on. */
    user?: User | null
    /** The credentials of the scheme that authenticated (a token record, …); `null` when none. */
    auth?: unknown
    /** The guarded request's context (state, JSON format, path params): see `requestContext`. */
    gatehouse?: RequestContext | null
  }
  interface FastifyContextConfig {
    /** Per-route gatehouse policies (`{ config: { gatehouse: { permissions: [IsAuthenticated] } } }`). */
    gatehouse?: PolicyOptions
  }
}

/**
 * Fastify's `rewriteUrl` server option that routes as Django does: the path percent-decoded
 * once (`/api%2Fwhoami/` is `/api/whoami/`), dot segments as sent, the query untouched.
 * Views still see the URL the client sent (`request.originalUrl`).
 *
 * @example
 * const app = Fastify({ rewriteUrl: djangoRewriteUrl })
 */
export function djangoRewriteUrl(req: { readonly url?: string | undefined }): string {
  const target = req.url ?? '/'
  const path = targetPath(target)
  return `${routingPath(path)}${target.slice(path.length)}`
}

/** DRF's 404 for a path no route matches: `404 {"detail": "Not found."}`. */
const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })
const MALFORMED = jsonResponse(400, { detail: 'Malformed request.' })

/**
 * DRF's routing rules as Fastify server options (they are read when the instance is made):
 * `rewriteUrl` routes the percent-decoded path (`djangoRewriteUrl`: `/api%2Fwhoami/` is
 * `/api/whoami/`, dot segments as sent), and `frameworkErrors` answers a path Fastify cannot
 * decode (`/api/%zz/`) with DRF's `404 {"detail": "Not found."}`, as Django finds no route for
 * it, and Fastify's other request errors with `400 {"detail": "Malformed request."}`. Fastify
 * already routes case-sensitively with the trailing slash significant; `mountRoutes` answers
 * unknown paths below its prefix with DRF's 404 (set `notFound` for the rest of the app).
 *
 * @example
 * const app = Fastify({ ...drfRouting(), logger: true })
 * await mountRoutes(app, [route('/api/books/:id/', book)])
 */
export function drfRouting(): DrfRouting {
  return { rewriteUrl: djangoRewriteUrl, frameworkErrors: answerFrameworkError }
}

/** What `drfRouting()` returns: the two Fastify server options it sets. */
export interface DrfRouting {
  /** Fastify's `rewriteUrl`: `djangoRewriteUrl`. */
  readonly rewriteUrl: (req: { readonly url?: string | undefined }) => string
  /** Fastify's `frameworkErrors`: DRF's 404 for an undecodable path, `400 Malformed request.` for the rest. */
  readonly frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void
}

function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  sendApiResponse(reply, error.code === 'FST_ERR_BAD_URL' ? NOT_FOUND : MALFORMED)
}

/**
 * A Fastify not-found handler answering DRF's `404 {"detail": "Not found."}`:
 * `app.setNotFoundHandler(notFound)` for paths outside the prefix `mountRoutes` answers below.
 */
export function notFound(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendApiResponse(reply, NOT_FOUND)
}

/**
 * The absolute request URL: the request target's path appended to the origin of the Host
 * header, never resolved as a URL (`//evil.example/x` is a path; an absolute-form target keeps
 * only its path), as on every adapter. `null` when the Host header cannot form one.
 */
function requestUrl(request: FastifyRequest): URL | null {
  return requestUrlOf(request.protocol, request.host, request.originalUrl)
}

/** How the Fastify adapter reads a request (Fastify itself reads the body, within its `bodyLimit`). */
export interface FastifyOptions {
  /** Path parameters to use instead of the matched route's (`request.params`). */
  readonly params?: Readonly<Record<string, string>>
}

/**
 * Translates a Fastify request into an `ApiRequest` (nothing is read until a policy or view asks
 * for it). A body no parser of the app read, or one Fastify read as text, is parsed by the core
 * with DRF's rules (JSON, forms; any other media type is DRF's 415); an object Fastify's own JSON
 * parser made is handed over as it is. `null` when the Host header cannot form a URL (answer 400).
 */
export function toApiRequest(request: FastifyRequest, options: FastifyOptions = {}): ApiRequest | null {
  const url = requestUrl(request)
  return url === null ? null : fastifyApiRequest(request, url, options.params)
}

function fastifyApiRequest(request: FastifyRequest, url: URL, params: Readonly<Record<string, string>> | undefined): ApiRequest {
  const body: unknown = request.body
  // Raw bytes (gatehouse's parsers) or text (Fastify's text/plain parser): the core's parsers judge them.
  const raw = Buffer.isBuffer(body) || typeof body === 'string'
  return createApiRequest({
    ...requestParts(request, url, params),
    readBody: raw ? async () => bytesOf(body) : NO_BODY,
    ...(raw || body === undefined || body === null ? {} : { parsedBody: () => ({ data: body }) }),
  })
}

const NO_BODY = (): Promise<null> => Promise.resolve(null)

function bytesOf(body: Buffer | string): Uint8Array | null {
  if (body.length === 0) return null
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : new Uint8Array(body.buffer, body.byteOffset, body.length)
}

/** An ApiRequest whose body was refused for its size: reading it throws `PayloadTooLarge`. */
function oversizedRequest(request: FastifyRequest, url: URL): ApiRequest {
  return createApiRequest({ ...requestParts(request, url, undefined), readBody: () => Promise.reject(new PayloadTooLarge()) })
}

/** What every ApiRequest of a Fastify request shares, whatever its body. */
function requestParts(request: FastifyRequest, url: URL, params: Readonly<Record<string, string>> | undefined): Omit<RawRequest, 'readBody' | 'parsedBody'> {
  return {
    method: request.method,
    url,
    headers: headerBag(request.headers),
    remoteAddress: request.socket.remoteAddress ?? null,
    params: params ?? stringParams(request.params),
  }
}

/** Fastify's decoded path parameters, keeping only string values (a wildcard `*` included). */
function stringParams(params: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (typeof params !== 'object' || params === null) return out
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string') out[key] = value
  return out
}

/**
 * Sends an `ApiResponse` (from `paginatedList`, `jsonResponse`, …) from an app's own handler:
 * `return sendApiResponse(reply, await paginatedList(…))`. A response HTTP cannot carry (a
 * header value Node refuses) is answered `500 {"detail": "A server error occurred."}` instead,
 * logged once through the route's `logError` (the guarded request's, else the default).
 */
export function sendApiResponse(reply: FastifyReply, response: ApiResponse): FastifyReply {
  return sendWire(reply, response, reply.request.gatehouse?.settings ?? DEFAULT_SETTINGS)
}

/** Writes `response` in one `send`; what cannot be sent is the logged 500 (see `wireResponse`). */
function sendWire(reply: FastifyReply, response: ApiResponse, settings: Settings): FastifyReply {
  const wire = wireResponse(response)
  if (wire.failure !== undefined) settings.logError(wire.failure, { method: reply.request.method, path: targetPath(reply.request.url) })
  reply.code(wire.status)
  let setCookies: string[] | null = null
  for (const [name, value] of wire.headers) {
    if (name.length === 10 && name.toLowerCase() === 'set-cookie') (setCookies ??= []).push(value)
    else reply.header(name, value)
  }
  if (setCookies !== null) reply.header('set-cookie', setCookies)
  // A Buffer keeps Fastify from appending `; charset=utf-8` (DRF sends bare `application/json`).
  return wire.body === undefined ? reply.send() : reply.send(Buffer.from(wire.body))
}

function apiRequestOf(request: FastifyRequest): ApiRequest | null {
  const url = requestUrl(request)
  return url === null ? null : fastifyApiRequest(request, url, undefined)
}

/**
 * Teaches Fastify every method Node's parser accepts (PROPFIND, MKCOL…; not CONNECT, which
 * never reaches a request handler), so a view answers them as DRF does: 405 with `Allow`, or
 * 401/403 first. Fastify's method list belongs to the whole instance; adding a method routes
 * nothing by itself (other routes still answer it 404). Bodyless: a view never reads the body
 * of a method it has no handler for, and Node discards what is left unread.
 */
function routeEveryMethod(app: FastifyInstance): void {
  const known = new Set(app.supportedMethods)
  for (const method of METHODS) if (method !== 'CONNECT' && !known.has(method)) app.addHttpMethod(method)
}

/** A Fastify route handler answering with `view` (which never throws); a malformed Host is a 400. */
export function viewHandler(view: ApiView, options: FastifyOptions = {}): (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply> {
  return (request, reply) => {
    const url = requestUrl(request)
    if (url === null) return sendWire(reply, INVALID_HOST_RESPONSE, view.settings)
    const response = view.handle(fastifyApiRequest(request, url, options.params)) as ApiResponse | Promise<ApiResponse>
    // A view that answered synchronously is sent now, without a promise of ours (Fastify takes the reply).
    return response instanceof Promise ? response.then((r) => sendWire(reply, r, view.settings)) : sendWire(reply, response, view.settings)
  }
}

function mountOne(app: FastifyInstance, r: Route, views: Map<string, ApiView>): void {
  const { path, view } = r
  const handler = viewHandler(view)
  // Keyed as Fastify reports the route (`request.routeOptions.url`), register prefix included.
  views.set(`${app.prefix}${path}`, view)
  app.route({
    method: [...app.supportedMethods],
    url: path,
    exposeHeadRoute: false,
    // For @fastify/swagger: the view's operations without a route `schema`, which would make
    // Fastify validate and serialize (the cast: its type augmentation is not loaded here).
    config: { swaggerTransform: swaggerTransformFor(view) } as NonNullable<RouteOptions['config']>,
    // Marked for `openApiRoutes(app)`: the route describes the view.
    handler: markView(
      r.params === undefined
        ? handler
        : // A parameter the route's converter refuses (`{ id: 'int' }` and `/abc/`): no route, as in Django.
          (request: FastifyRequest, reply: FastifyReply) => (routeParamsMatch(r, stringParams(request.params)) ? handler(request, reply) : reply.callNotFound()),
      view,
    ),
  })
}

/**
 * Installs, on one encapsulated instance, the raw-body parser and DRF-shaped 404 / framework
 * errors. `views` (path → view) lets a body refused for its size reach its view, which
 * answers the 413 when it reads the body, after its own checks and with its Allow and Vary,
 * as on every other adapter (and as Django raises only once the body is read).
 */
function installDrfScope(app: FastifyInstance, views: ReadonlyMap<string, ApiView>): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
  app.setNotFoundHandler(notFound)
  const fallback = errorHandler()
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const view = views.get(request.routeOptions.url ?? '')
    // Fastify refuses a QUERY without Content-Type before the handler: the view answers it
    // (405 or 401/403, as DRF); it has no QUERY handler that would read the body.
    if (error.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE') {
      // No view: the not-found route got it, and it is DRF's 404 like any other method.
      if (view === undefined) return sendApiResponse(reply, NOT_FOUND)
      const url = requestUrl(request)
      if (url === null) return sendWire(reply, INVALID_HOST_RESPONSE, view.settings)
      return sendWire(reply, await view.handle(fastifyApiRequest(request, url, undefined)), view.settings)
    }
    if (error.statusCode === 413 && view !== undefined) {
      const url = requestUrl(request)
      if (url === null) return sendWire(reply, INVALID_HOST_RESPONSE, view.settings)
      // The body was not read to its end: close rather than drain it.
      reply.header('connection', 'close')
      return sendWire(reply, await view.handle(oversizedRequest(request, url)), view.settings)
    }
    return fallback(error, request, reply)
  })
}

interface ViewsPluginOptions {
  /** Paths relative to `prefix`. */
  readonly routes: readonly Route[]
  /** Fastify's own register prefix; the DRF 404 answers only below it. */
  readonly prefix?: string
}

const viewsPlugin: FastifyPluginAsync<ViewsPluginOptions> = async (scope, options) => {
  const views = new Map<string, ApiView>()
  installDrfScope(scope, views)
  routeEveryMethod(scope)
  for (const r of options.routes) mountOne(scope, r, views)
}

/**
 * The `Content-Type`s the `gatehouse` plugin parses with DRF's rules (JSON with Python's
 * `json` semantics, urlencoded forms), so `request.body` is what a DRF view's `request.data`
 * would be. A malformed body is answered as DRF does, once the route's policies passed (a
 * refusal comes first, as DRF parses only when the view reads `request.data`): DRF's exact 400.
 */
const DRF_PARSED = ['application/json', 'application/x-www-form-urlencoded']

/** The `gatehouse` plugin's body parser: DRF's result, or the raw bytes of a malformed body. */
async function drfBodyParser(request: FastifyRequest, body: Buffer): Promise<unknown> {
  try {
    return await parseBody(request.headers['content-type'] ?? null, body.length === 0 ? null : new Uint8Array(body))
  } catch (error) {
    if (!isApiError(error)) throw error
    return deferBody(body)
  }
}

/**
 * Middleware style: a `preHandler` hook running a route's policies (allowed host,
 * authentication, permissions, throttles) before its handler, setting `request.user`,
 * `request.auth` and `request.gatehouse` (see `requestContext`) and the `Vary` the consulted
 * schemes need. A refusal answers in DRF's shape (status, `{"detail"}`, `WWW-Authenticate`,
 * `Retry-After`, `Vary`). Errors the handler throws reach Fastify's error handler: set
 * `errorHandler()` to answer them in DRF's shape.
 *
 * @example
 * app.setErrorHandler(errorHandler(api))
 * app.get('/books/:id', { preHandler: policies(api, { permissions: [new IsAuthenticated()] }) }, async (request) => ({ user: request.user?.username }))
 */
export function policies(routePolicies: Policies, options?: OpenApiRouteOptions): preHandlerAsyncHookHandler
export function policies(api: Api, options?: PoliciesOptions): preHandlerAsyncHookHandler
export function policies(source: Api | Policies, options: PoliciesOptions = {}): preHandlerAsyncHookHandler {
  const routePolicies = resolvePolicies(source, options, ['openApi'])
  const preHandler: preHandlerAsyncHookHandler = async function (request, reply) {
    const result = await routePolicies.run(apiRequestOf(request))
    if (result.response !== null) return sendWire(reply, result.response, routePolicies.settings)
    const context = result.context
    request.user = context.user
    request.auth = context.auth
    request.gatehouse = context
    if (context.vary.length > 0) addVary(reply, context.vary)
    // A body a parser refused (the `gatehouse` plugin's, `drfErrors`'): DRF's parse error, now that the policies passed.
    // (A body no parser read waits for the handler to read it, as DRF parses only then.)
    if (hasMalformedBody(request)) await settleDeferredBody(request, () => context.request.body())
    return undefined
  }
  // Found on its route by `openApiRoutes(app)`.
  return markPolicies(preHandler, routePolicies, { ...options, name: source instanceof Policies ? undefined : options.name })
}

/** Options of `policies(api, options)`: the route's policies (Fastify reads the request itself) and what OpenAPI says of it. */
interface PoliciesOptions extends PolicyOptions, OpenApiRouteOptions {}

/**
 * The handler context of a request `policies()` let through, for the core's helpers that take
 * one (`paginatedList(requestContext(request), …)`): JSON format, the route's params. Throws
 * when `policies()` did not run on the request.
 */
export function requestContext(request: FastifyRequest): RequestContext {
  const context = request.gatehouse
  if (context === undefined || context === null) throw new Error('gatehouse: requestContext() needs policies() to have run on this request')
  return context
}

/** A Fastify error handler: what `errorHandler()` returns. */
export type FastifyErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>

/** The `ApiError` DRF raises for one of Fastify's own request errors (bad media type, body too large…), or `null`. */
function frameworkError(error: FastifyError, request: FastifyRequest): ApiError | null {
  if (isApiError(error)) return null
  const status = error.statusCode
  if (typeof status !== 'number' || status < 400 || status >= 500) return null
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new UnsupportedMediaType(request.headers['content-type'] ?? '')
  return status === 413 ? new PayloadTooLarge() : new MalformedRequest(status)
}

/**
 * Fastify error handler answering every error in DRF's shape: an error of a guarded request
 * through the route's exception handler (with its `Vary`), Fastify's own request errors (an
 * unsupported media type as DRF's 415, a body over the limit as 413, other 4xx as
 * `400 {"detail": "Malformed request."}`), and any other error as a logged
 * `500 {"detail": "A server error occurred."}` (through `api`'s settings when given).
 * A malformed JSON body is DRF's exact `400 {"detail": "JSON parse error - …"}` on routes
 * where a parser kept it for DRF's rules: the `gatehouse` plugin's and, app-wide, those of
 * an app that registered `drfErrors` (which sets this handler too).
 *
 * @example
 * app.setErrorHandler(errorHandler(api))
 */
export function errorHandler(api?: Api): FastifyErrorHandler {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  return async (fastifyError, request, reply) => {
    let error: unknown = fastifyError
    // A schema refused a body no parser could read: DRF's parse error is the answer, as DRF parses first.
    if (hasDeferredBody(request) && !isApiError(error)) await settleDeferredBody(request).catch((parseError: unknown) => (error = parseError))
    const context = request.gatehouse
    if (context !== undefined && context !== null) return sendApiResponse(reply, errorResponse(error, context))
    const scope = { request: apiRequestOf(request), settings }
    const refusal = frameworkError(error as FastifyError, request)
    return sendApiResponse(reply, refusal === null ? errorResponse(error, scope) : refusalResponse(refusal, scope))
  }
}

/** Options of the `gatehouse` plugin. */
interface GatehousePluginOptions {
  /** Where the routes' policies take their global settings from (`createApi({ … })`). */
  readonly api: Api
  /**
   * The app's routes to run policies on, registered inside gatehouse's scope (hooks and the error
   * handler of an encapsulated plugin reach only its own routes). Routes declare their
   * policies in `config.gatehouse` (or with `preHandler: policies(…)`); routes without
   * either are left alone.
   */
  readonly plugin?: FastifyPluginAsync
}

/**
 * Middleware style as an encapsulated Fastify plugin: `app.register(gatehouse, { api, plugin })`.
 * Every route in its scope with `config: { gatehouse: PolicyOptions }` runs `policies()` with
 * those options (built when the route is registered: a bad option stops start-up, never a
 * request), and OpenAPI documents from @fastify/swagger show their security. The scope
 * answers errors with `errorHandler(api)`, and parses JSON and form bodies with DRF's rules
 * (`request.body` is what DRF's `request.data` would be; a malformed body is DRF's exact 400,
 * after a refusal); other parsers of the app are untouched.
 */
export const gatehouse: FastifyPluginAsync<GatehousePluginOptions> = async (scope, options) => {
  scope.decorateRequest('user', null)
  scope.decorateRequest('auth', null)
  scope.decorateRequest('gatehouse', null)
  scope.removeContentTypeParser(DRF_PARSED)
  scope.addContentTypeParser(DRF_PARSED, { parseAs: 'buffer' }, drfBodyParser)
  keepOtherBodies(scope)
  scope.addHook('onRoute', (routeOptions) => {
    const declared = routeOptions.config?.gatehouse
    if (declared === undefined) return
    const routePolicies = options.api.policies({ name: `${routeOptions.method.toString()} ${routeOptions.url}`, ...declared })
    // Read by @fastify/swagger when the app registers it: the route's policies' security requirements (document only).
    const config: Record<string, unknown> = { ...routeOptions.config }
    if (config['swaggerTransform'] === undefined) {
      config['swaggerTransform'] = policiesSwaggerTransform(routePolicies)
      routeOptions.config = config as NonNullable<typeof routeOptions.config>
    }
    const check = policies(routePolicies)
    const existing = routeOptions.preHandler
    // Gatehouse runs first: the app's own preHandlers already see `request.user`.
    routeOptions.preHandler = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])]
  })
  // A route of the scope without policies: a body DRF's parsers refused is their 400, never raw bytes in its handler.
  scope.addHook('onRoute', judgeDeferredBodyFirst)
  scope.setErrorHandler(errorHandler(options.api))
  if (options.plugin !== undefined) await scope.register(options.plugin)
}

/**
 * Makes a route's handler judge a deferred body before it runs (`settleDeferredBody`): the
 * handler of a route whose policies did not already do so sees DRF's data or never runs.
 * Requests without a deferred body go straight to the handler.
 */
function judgeDeferredBodyFirst(routeOptions: RouteOptions): void {
  const handler = routeOptions.handler
  routeOptions.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    if (!hasDeferredBody(request)) return handler.call(this, request, reply)
    return settleDeferredBody(request).then(() => handler.call(this, request, reply))
  }
}

/**
 * A body of a media type no parser of the app reads (a form without @fastify/formbody,
 * `text/xml`) is kept as its bytes instead of Fastify's own 415 before the policies: read
 * through `requestContext(request).request.body()`, a form is parsed as on every adapter and any
 * other type is DRF's `415 Unsupported media type "…" in request.`, after a refusal; a route
 * without policies judges it before its handler. An app's own catch-all parser is kept.
 */
function keepOtherBodies(app: FastifyInstance): void {
  if (app.hasContentTypeParser('*')) return
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body: Buffer, done) => done(null, keepUnparsed(body)))
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Options of the `drfErrors` plugin. */
export interface DrfErrorsOptions {
  /** Where `errorHandler` takes its settings from (`exceptionHandler`, `logError`). */
  readonly api?: Api
}

/**
 * DRF's error shape for the whole app, the app's own routes included: sets
 * `errorHandler(api)` on the instance it is registered on, and makes a malformed JSON body
 * DRF's exact `400 {"detail": "JSON parse error - …"}` instead of Fastify's. Well-formed JSON
 * is parsed by Fastify's own parser as before (same options, same `request.body`); a body it
 * refuses is judged by DRF's parser once the route's `policies()` passed (a refusal comes
 * first, with its `Vary`), or before the handler of a route without them; a body refused only
 * for `__proto__` or `constructor` (Fastify's `onProtoPoisoning` options) keeps Fastify's
 * answer. Not encapsulated (like a `fastify-plugin`): register it on the root instance before
 * your routes and before a JSON parser of your own, which it would replace.
 *
 * @example
 * await app.register(drfErrors, { api })
 */
export const drfErrors: FastifyPluginAsync<DrfErrorsOptions> = async (app, options) => {
  const config = app.initialConfig
  const parseJson = app.getDefaultJsonParser(config.onProtoPoisoning ?? 'error', config.onConstructorPoisoning ?? 'error') as (
    request: FastifyRequest,
    body: string,
    done: (error: FastifyError | null, value?: unknown) => void,
  ) => void
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const text = body.toString('utf8')
    parseJson(request, text, (error, value) => {
      // JSON that JSON.parse reads was refused for `__proto__`/`constructor` (the app's poisoning options): Fastify's answer stands.
      if (error?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' && !isJson(text)) done(null, deferBody(body))
      else done(error, value)
    })
  })
  keepOtherBodies(app)
  app.addHook('onRoute', judgeDeferredBodyFirst)
  app.setErrorHandler(errorHandler(options.api))
}
// What `fastify-plugin` sets: the plugin changes the instance it is registered on, not a child scope.
Object.assign(drfErrors, { [Symbol.for('skip-override')]: true })

function addVary(reply: FastifyReply, names: readonly string[]): void {
  const current = reply.getHeader('vary')
  const list = typeof current === 'string' && current !== '' ? current.split(',').map((s) => s.trim()) : []
  for (const name of names) if (!list.some((v) => v.toLowerCase() === name.toLowerCase())) list.push(name)
  reply.header('vary', list.join(', '))
}

/** Options of `mountRoutes`. */
export interface MountOptions {
  /**
   * The path the routes are mounted below (Fastify's register prefix); unknown paths below
   * it answer DRF's 404.
   */
  readonly prefix?: string
}

export { openApiRoutes } from './openapi-routes.js'

/**
 * Mounts DRF-style views in their own encapsulated scope: bodies reach the views raw (DRF's
 * parse, 415 and form rules), unknown paths below `prefix` answer `404 {"detail": "Not found."}`
 * and Fastify's own errors (413 …) answer in DRF's shape. Each view is mounted for every method
 * (it answers 405 itself) with the route's path parameters in `ApiRequest.params`. Parsers and
 * handlers of the rest of the app are untouched.
 *
 * @example
 * await mountRoutes(app, [route('/books/:id/', book)], { prefix: '/api' })
 */
export async function mountRoutes<F extends FastifyInstance>(app: F, routes: readonly Route[], options: MountOptions = {}): Promise<F> {
  await app.register(viewsPlugin, { routes, ...(options.prefix === undefined ? {} : { prefix: options.prefix }) })
  return app
}
