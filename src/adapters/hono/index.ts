import type { Context, ErrorHandler, Hono, MiddlewareHandler, Next } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status'
import type { ApiRequest } from '../../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../../core/api-response.js'
import type { Api } from '../../core/api.js'
import { errorResponse, INVALID_HOST_RESPONSE } from '../../core/exception-handler.js'
import { PayloadTooLarge } from '../../core/errors.js'
import { Policies, resolvePolicies, type PolicyOptions } from '../../core/policies.js'
import type { RequestContext } from '../../core/pipeline.js'
import { DEFAULT_SETTINGS, type Settings } from '../../core/settings.js'
import { requestUrlOf } from '../../core/request/request-url.js'
import { WRITE_FAILED_RESPONSE, WRITE_FAILED_WIRE, wireResponse, type WireResponse } from '../../core/sendable-response.js'
import type { ApiView } from '../../core/view.js'
import { createApiRequest } from '../../core/request/request-factory.js'
import { routeParamsMatch, type Route } from '../../core/route.js'
import { routingPath, targetPath } from '../../core/request/url-decoding.js'
import type { User } from '../../core/user.js'
import { describedRoutes, markPolicies, markView, type DescribedRoute, type OpenApiRouteOptions } from '../../openapi/policy-route.js'
import { clientAddress, type ConnInfoReader } from './client-address.js'
import { incomingOf, nodeHeaders, type IncomingLike } from './node-server-request.js'

/** How the Hono adapter reads a request. */
export interface HonoOptions {
  /** Largest request body read, in bytes; a larger one answers 413. @default 1048576 (1 MiB) */
  readonly bodyLimit?: number
  /**
   * Reads the client's address (throttle identity, `request.remoteAddress`): Hono's
   * `getConnInfo` for the runtime, or your own. Without it the adapter reads
   * @hono/node-server's, `Bun.serve`'s and `Deno.serve`'s connection itself, and finds no
   * address elsewhere (e.g. Cloudflare Workers: pass `hono/cloudflare-workers`' `getConnInfo`).
   * @default the address @hono/node-server, Bun or Deno gives
   */
  readonly getConnInfo?: ConnInfoReader
  /** Path parameters to use instead of the matched route's (`c.req.param()`). */
  readonly params?: Readonly<Record<string, string>>
}

/** Options of `policies(api, options)`: the route's policies, how its body is read, what OpenAPI says of it. */
interface PoliciesOptions extends PolicyOptions, HonoOptions, OpenApiRouteOptions {}

/**
 * What `policies()` puts on the context: `c.get('user')`, `c.get('auth')`, and the whole
 * request state as `c.get('gatehouse')`. Use as `new Hono<{ Variables: GatehouseVariables }>()`.
 */
export interface GatehouseVariables {
  user: User
  auth: unknown
  gatehouse: RequestContext
}

/** The Hono environment of a guarded app: `new Hono<GatehouseEnv>()`. */
export interface GatehouseEnv {
  Variables: GatehouseVariables
}

const DEFAULT_BODY_LIMIT = 1024 * 1024

export { withoutBodilessContentType } from './bodiless-answers.js'

export type { ConnInfoReader } from './client-address.js'

/**
 * Reads the body once, failing with `PayloadTooLarge` past `limit` bytes (a declared
 * Content-Length is refused before reading; a chunked body stops at the limit). The bytes
 * go into Hono's body cache, so the app's own handler can still call `c.req.json()`.
 */
async function readBody(c: Context, limit: number): Promise<Uint8Array | null> {
  const declared = Number(c.req.header('content-length'))
  if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLarge()
  const cache = c.req.bodyCache
  let bytes: Uint8Array
  if (Object.keys(cache).length > 0 || c.req.raw.body === null) {
    // Already read by someone else (or nothing to read): Hono's cache answers.
    bytes = new Uint8Array(await c.req.arrayBuffer())
    if (bytes.length > limit) throw new PayloadTooLarge()
  } else {
    const reader = c.req.raw.body.getReader()
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.length
      if (size > limit) {
        await reader.cancel().catch(() => undefined)
        throw new PayloadTooLarge()
      }
      chunks.push(value)
    }
    bytes = new Uint8Array(size)
    let offset = 0
    for (const chunk of chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
    // Hono's cache holds promises at run time (its type says ArrayBuffer).
    Object.assign(cache, { arrayBuffer: Promise.resolve(bytes.buffer) })
  }
  return bytes.length === 0 ? null : bytes
}

/**
 * The absolute request URL by the rule every adapter follows: the path and query the runtime
 * parsed, on the origin of the `Host` header (an absolute-form target, `GET http://evil/x`,
 * which @hono/node-server makes the request's URL, does not change the host). `null` when the
 * Host header is not a bare `host[:port]`. On @hono/node-server it is built from the node
 * request as the node:http adapter builds it, without Hono's Web `Headers` (made on first use).
 */
function requestUrl(c: Context, incoming: IncomingLike | null): URL | null {
  if (incoming !== null) {
    const protocol = incoming.socket?.encrypted === true ? 'https' : 'http'
    return requestUrlOf(protocol, incoming.headers.host, incoming.url ?? '/')
  }
  const url = new URL(c.req.url)
  const host = c.req.raw.headers.get('host')
  if (host === null || host === url.host) return url
  return requestUrlOf(url.protocol.slice(0, -1), host, `${url.pathname}${url.search}`)
}

/**
 * Translates a Hono request into an `ApiRequest`: the request's headers (on
 * @hono/node-server, node's own, as the other adapters read them), the URL, the route's
 * parameters, the client's address (see `HonoOptions.getConnInfo`). The body is read only
 * when a policy or view asks for it. `null` when the Host header cannot form a URL (answer 400).
 */
export function toApiRequest(c: Context, options: HonoOptions = {}): ApiRequest | null {
  const incoming = incomingOf(c)
  const url = requestUrl(c, incoming)
  if (url === null) return null
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: c.req.method,
    url,
    headers: incoming === null ? c.req.raw.headers : nodeHeaders(incoming.headers),
    remoteAddress: clientAddress(c, options.getConnInfo),
    params: options.params ?? (c.req.param() as Record<string, string>),
    readBody: () => readBody(c, limit),
  })
}

/** The response headers as Web `Headers` (each `Set-Cookie` appended on its own). */
function toHeaders(headers: WireResponse['headers']): Headers {
  const out = new Headers()
  for (const [name, value] of headers) out.append(name, value)
  return out
}

/**
 * The response headers as a `Response` takes them: a plain record when no name repeats (which
 * @hono/node-server writes with one `writeHead`, never making a `Headers`), else `Headers`.
 */
function headersInit(headers: WireResponse['headers']): Record<string, string> | Headers {
  const out: Record<string, string> = {}
  for (const [name, value] of headers) {
    const key = name.toLowerCase()
    if (Object.hasOwn(out, key)) return toHeaders(headers)
    out[key] = value
  }
  return out
}

/** `response` as sendable parts; what HTTP cannot carry is the 500, logged once through `settings`. */
function checked(response: ApiResponse, settings: Settings, c: Context | null): WireResponse {
  const wire = wireResponse(response)
  if (wire.failure !== undefined) logFailure(settings, c, wire.failure)
  return wire
}

function logFailure(settings: Settings, c: Context | null, error: unknown): void {
  settings.logError(error, c === null ? { method: 'unknown', path: 'unknown' } : { method: c.req.method, path: c.req.path })
}

/** A Web `Response` from checked parts; a status a Web `Response` refuses (1xx, over 599) is the logged 500. */
function webResponse(wire: WireResponse, settings: Settings, c: Context | null): Response {
  try {
    return new Response(wire.body ?? null, { status: wire.status, headers: headersInit(wire.headers) })
  } catch (error) {
    logFailure(settings, c, error)
    return new Response(WRITE_FAILED_WIRE.body ?? null, { status: WRITE_FAILED_WIRE.status, headers: toHeaders(WRITE_FAILED_WIRE.headers) })
  }
}

/**
 * Builds a Web `Response` from an `ApiResponse` (bare `application/json`, as DRF sends). A
 * response HTTP cannot carry (a header value Node refuses) is `500 {"detail": "A server error
 * occurred."}` instead, logged once.
 */
function toResponse(response: ApiResponse): Response {
  return webResponse(checked(response, DEFAULT_SETTINGS, null), DEFAULT_SETTINGS, null)
}

/**
 * Answers a Hono handler with an `ApiResponse` (e.g. from `paginatedList`), keeping the
 * headers the app set with `c.header()`. A response HTTP cannot carry is the logged 500.
 */
export function sendApiResponse(c: Context, response: ApiResponse): Response {
  const settings = ((c as Context<GatehouseEnv>).get('gatehouse') as RequestContext | undefined)?.settings ?? DEFAULT_SETTINGS
  let wire = checked(response, settings, c)
  if (wire.status < 200 || wire.status > 599) {
    logFailure(settings, c, new Error(`gatehouse: cannot send status ${wire.status}`))
    wire = WRITE_FAILED_WIRE
  }
  const headers = toHeaders(wire.headers)
  return wire.body === undefined
    ? c.body(null, { status: wire.status as StatusCode, headers })
    : c.body(wire.body, { status: wire.status as ContentfulStatusCode, headers })
}

/**
 * The `RequestContext` that `paginatedList` and friends take, for a request `policies()` let
 * through (JSON format, the route's parameters). Throws when `policies()` did not run on it.
 */
export function requestContext(c: Context): RequestContext {
  const context = (c as Context<GatehouseEnv>).get('gatehouse') as RequestContext | undefined
  if (context === undefined) throw new Error('gatehouse: requestContext() needs policies() to have run on this request')
  return context
}

/** Replaces the context's response without Hono merging the old one's headers into it. */
function replaceResponse(c: Context, response: Response): void {
  c.res = undefined
  c.res = response
}

const ADAPTER_KEYS: readonly (keyof PoliciesOptions)[] = ['bodyLimit', 'getConnInfo', 'openApi']

/**
 * Middleware running a route's policies (authentication, permissions, throttles) before the
 * app's handler. On success `c.get('user')`, `c.get('auth')` and `c.get('gatehouse')` are
 * set and the answer gets the `Vary` the consulted schemes need; a refusal answers in DRF's
 * JSON shape (status, `{"detail"}`, `WWW-Authenticate`, `Retry-After`, `Vary`). Errors the
 * app's handler throws reach `app.onError`: install `errorHandler()` there to answer them in
 * DRF's shape.
 *
 * @example
 * app.get('/books/:id', policies(api, { permissions: [new IsAuthenticated()] }), (c) => c.json({ user: c.get('user').username }))
 */
export function policies(routePolicies: Policies, options?: HonoOptions & OpenApiRouteOptions): MiddlewareHandler<GatehouseEnv>
export function policies(api: Api, options?: PoliciesOptions): MiddlewareHandler<GatehouseEnv>
export function policies(source: Api | Policies, options: PoliciesOptions = {}): MiddlewareHandler<GatehouseEnv> {
  const routePolicies = resolvePolicies(source, options, ADAPTER_KEYS)
  const adapterOptions: HonoOptions = {
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    ...(options.getConnInfo === undefined ? {} : { getConnInfo: options.getConnInfo }),
  }
  const middleware: MiddlewareHandler<GatehouseEnv> = async (c, next) => {
    const result = await routePolicies.run(toApiRequest(c, adapterOptions))
    if (result.response !== null) return webResponse(checked(result.response, routePolicies.settings, c), routePolicies.settings, c)
    const context = result.context
    c.set('user', context.user)
    c.set('auth', context.auth)
    c.set('gatehouse', context)
    try {
      await next()
    } catch (error) {
      // Hono hands Error throws to app.onError itself; only non-Error throws arrive here.
      replaceResponse(c, webResponse(checked(errorResponse(error, context), context.settings, c), context.settings, c))
      return undefined
    }
    // The answer depends on the headers the consulted schemes read (Session: Cookie); an
    // error answered by `errorHandler()` carries them already.
    if (context.vary.length > 0 && c.error === undefined) c.header('Vary', context.vary.join(', '), { append: true })
    return undefined
  }
  return markPolicies(middleware, routePolicies, { ...options, name: source instanceof Policies ? undefined : options.name })
}

/**
 * An `app.onError` handler answering every error in DRF's shape: an error of a guarded request
 * through the route's exception handler (with its `Vary`), any other error as a logged
 * `500 {"detail": "A server error occurred."}` (through `api`'s settings when given). A Hono
 * `HTTPException` the app threw keeps its own response.
 *
 * @example
 * app.onError(errorHandler(api))
 */
export function errorHandler(api?: Api): ErrorHandler {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  return (error, c) => {
    if (error instanceof HTTPException) return error.getResponse()
    const scope = ((c as Context<GatehouseEnv>).get('gatehouse') as RequestContext | undefined) ?? { request: toApiRequest(c), settings }
    return webResponse(checked(errorResponse(error, scope), scope.settings, c), scope.settings, c)
  }
}

/**
 * Hono's `getPath` option that routes as Django does: the path the client sent (on
 * `@hono/node-server`, the raw request target, before the WHATWG URL resolves `/./` and
 * `/../`), percent-decoded once so `%2F` is a `/`. Needs `strict: true` (Hono ignores
 * `getPath` otherwise), which also keeps the trailing slash significant.
 *
 * @example
 * const app = new Hono({ strict: true, getPath: djangoGetPath })
 */
export function djangoGetPath(request: Request, options?: { env?: unknown }): string {
  const incoming = (options?.env as { incoming?: { url?: unknown } } | undefined)?.incoming?.url
  const raw = typeof incoming === 'string' && incoming.startsWith('/') ? targetPath(incoming) : rawPathOf(request.url)
  return routingPath(raw)
}

/** The path of an absolute URL string as it is written (`http://h/a/b?q` → `/a/b`). */
function rawPathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf(':') + 3)
  return start === -1 ? '/' : targetPath(url.slice(start))
}

const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })

/** DRF's `404 {"detail": "Not found."}` as Hono's not-found handler: `app.notFound(notFound)` (`drfRouting` sets it). */
export function notFound(): Response {
  return toResponse(NOT_FOUND)
}

/**
 * Applies DRF's routing rules to a Hono app: the path routed is the one the client sent,
 * percent-decoded as Django decodes it (`djangoGetPath`: `/api%2Fwhoami/` is `/api/whoami/`,
 * `/./` kept as sent), with the trailing slash significant (what Hono's `strict: true` means),
 * and a path no route matches is DRF's `404 {"detail": "Not found."}` (`notFound`). Hono
 * already routes case-sensitively. Call it on the app that serves (not on a sub-app mounted
 * with `app.route()`, whose path and 404 are the parent's). On @hono/node-server, also wrap
 * the listener: `withoutBodilessContentType(getRequestListener(app.fetch, { errorHandler: requestErrorHandler }))`.
 *
 * @example
 * const app = drfRouting(new Hono())
 * mountRoutes(app, [route('/api/books/:id/', book)])
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Hono app, whatever its env and schema
export function drfRouting<A extends Hono<any, any, any>>(app: A): A {
  // What `new Hono({ strict: true, getPath })` does (Hono's constructor assigns its options to
  // the instance, and reads `getPath` on every request); `getPath` is typed read-only.
  Object.assign(app, { getPath: djangoGetPath })
  app.notFound(notFound)
  return app
}

/**
 * @hono/node-server's `errorHandler` option (`getRequestListener(app.fetch, { errorHandler: requestErrorHandler })`):
 * a request it cannot turn into a Web `Request` (a malformed `Host`, a backslash in the path)
 * is DRF's `400 {"detail": "Invalid Host header."}` rather than an empty 400; any other error
 * (the app's `fetch` threw) is a logged `500 {"detail": "A server error occurred."}` (an
 * `errorHandler` that returns nothing would leave the client waiting).
 */
export function requestErrorHandler(error: unknown): Response {
  if (error instanceof Error && error.name === 'RequestError') return toResponse(INVALID_HOST_RESPONSE)
  DEFAULT_SETTINGS.logError(error, { method: 'unknown', path: 'unknown' })
  return toResponse(WRITE_FAILED_RESPONSE)
}

/** Options of `mountRoutes`. */
export interface MountOptions extends HonoOptions {
  /** A path the routes are mounted under (`'/v1'`: `route('/books/', …)` answers `/v1/books/`). @default none */
  readonly prefix?: string
}

/**
 * Mounts each route's `ApiView` for every method (`app.all`), so the view answers DRF's
 * 405 itself; the route's `:name` parameters reach `ApiRequest.params`. `options.prefix`
 * mounts them under a path.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Hono app, whatever its env and schema
export function mountRoutes<A extends Hono<any, any, any>>(app: A, routes: readonly Route[], options: MountOptions = {}): A {
  const prefix = (options.prefix ?? '').replace(/\/$/, '')
  for (const r of routes) {
    const handler = viewHandler(r.view, options)
    // A parameter the route's converter refuses (`{ id: 'int' }` and `/abc/`): no route, as in Django.
    const converted = async (c: Context, next: Next): Promise<Response | void> => (routeParamsMatch(r, c.req.param() as Record<string, string>) ? handler(c) : next())
    app.all(`${prefix}${r.path}`, markView(r.params === undefined ? handler : converted, r.view))
  }
  return app
}

/** A Hono handler answering with `view` (which never throws); a malformed Host is a 400. */
export function viewHandler(view: ApiView, options: HonoOptions = {}): (c: Context) => Response | Promise<Response> {
  const answer = (c: Context, response: ApiResponse): Response => webResponse(checked(response, view.settings, c), view.settings, c)
  return (c) => {
    const request = toApiRequest(c, options)
    if (request === null) return answer(c, INVALID_HOST_RESPONSE)
    const response = view.handle(request) as ApiResponse | Promise<ApiResponse>
    // A view that answered synchronously is answered now, without a promise of ours (Hono takes either).
    return response instanceof Promise ? response.then((r) => answer(c, r)) : answer(c, response)
  }
}

/** What Hono keeps of a handler it wrapped when `app.route()` mounted an app with its own `onError`. */
const COMPOSED_HANDLER = '__COMPOSED_HANDLER'

/**
 * The routes of `app` that OpenAPI documents describe (`openApiDocument`, `openApiView`'s
 * `routes`): each view `mountRoutes` mounted, and each route of your own with a `policies()`
 * middleware, for its method and path as `app.routes` lists them (sub-apps mounted with
 * `app.route()` included, `:id{[0-9]+}` written `:id`). A `policies()` on every method
 * (`app.use`, `app.all`) describes no operation. Call it once the routes are registered: in
 * `openApiView({ routes: () => openApiRoutes(app) })`, on the first request.
 *
 * @example
 * app.get('/books/', policies(api, { openApi: { list: { item: book } } }), (c) => …)
 * const doc = openApiDocument(openApiRoutes(app), { info: { title: 'Books', version: '1' } })
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Hono app, whatever its env and schema
export function openApiRoutes(app: Hono<any, any, any>): DescribedRoute[] {
  return describedRoutes(
    app.routes.map((r) => ({ method: r.method, path: r.path, handlers: [r.handler, (r.handler as unknown as Record<string, unknown>)[COMPOSED_HANDLER]] })),
  )
}
