import type { Context, ErrorHandler, Hono, MiddlewareHandler } from 'hono'
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status'
import type { ApiRequest } from '../../core/api-request.js'
import { serializeBody, withHeaders, type ApiResponse } from '../../core/api-response.js'
import type { Api } from '../../core/api.js'
import type { AuthenticationScheme } from '../../core/authentication-scheme.js'
import { isApiError, PayloadTooLarge } from '../../core/errors.js'
import { Guard, type GuardOptions } from '../../core/guard.js'
import { varyOf, type RequestState } from '../../core/pipeline.js'
import { createApiRequest } from '../../core/request-factory.js'
import { isStoreUnavailable } from '../../core/store-faults.js'
import type { Route } from '../../core/route.js'
import type { User } from '../../core/user.js'
import type { RequestContext } from '../../core/view.js'

/** How the Hono adapter reads a request. */
export interface HonoOptions {
  /** Largest request body read, in bytes; a larger one answers 413. @default 1048576 (1 MiB) */
  readonly bodyLimit?: number
}

/** Options of `policies(api, options)`: the route's policies and how its body is read. */
export interface PoliciesOptions extends GuardOptions, HonoOptions {}

/**
 * What `policies()` puts on the context: `c.get('user')`, `c.get('auth')`, and the whole
 * request state as `c.get('gatehouse')`. Use as `new Hono<{ Variables: GatehouseVariables }>()`.
 */
export interface GatehouseVariables {
  user: User
  auth: unknown
  gatehouse: RequestState
}

/** The Hono environment of a guarded app: `new Hono<GatehouseEnv>()`. */
export interface GatehouseEnv {
  Variables: GatehouseVariables
}

const DEFAULT_BODY_LIMIT = 1024 * 1024

export { PayloadTooLarge } from '../../core/errors.js'

/** The peer address @hono/node-server passes as `c.env.incoming`; `null` on other runtimes. */
function remoteAddress(env: unknown): string | null {
  if (typeof env !== 'object' || env === null) return null
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } }).incoming
  const address = incoming?.socket?.remoteAddress
  return typeof address === 'string' ? address : null
}

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
 * Translates a Hono request into an `ApiRequest`: Web headers as they are, the URL Hono
 * built, the route's parameters, the peer address from @hono/node-server when present.
 * The body is read only when a policy or view asks for it.
 */
export function toApiRequest(c: Context, options: HonoOptions = {}): ApiRequest {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: c.req.method,
    url: new URL(c.req.url),
    headers: c.req.raw.headers,
    remoteAddress: remoteAddress(c.env),
    params: c.req.param() as Record<string, string>,
    readBody: () => readBody(c, limit),
  })
}

/** The response headers as Web `Headers` (each `Set-Cookie` appended on its own). */
function toHeaders(response: ApiResponse): Headers {
  const headers = new Headers()
  for (const [name, value] of response.headers) headers.append(name, value)
  return headers
}

/** Builds a Web `Response` from an `ApiResponse` (bare `application/json`, as DRF sends). */
export function toResponse(response: ApiResponse): Response {
  return new Response(serializeBody(response) ?? null, { status: response.status, headers: toHeaders(response) })
}

/**
 * Answers a Hono handler with an `ApiResponse` (e.g. from `paginatedList`), keeping the
 * headers the app set with `c.header()`.
 */
export function sendApiResponse(c: Context, response: ApiResponse): Response {
  const body = serializeBody(response)
  const headers = toHeaders(response)
  return body === undefined
    ? c.body(null, { status: response.status as StatusCode, headers })
    : c.body(body, { status: response.status as ContentfulStatusCode, headers })
}

/**
 * The `RequestContext` that `paginatedList` and view handlers take, for a route guarded by
 * `policies()` (JSON format, the route's parameters).
 */
export function requestContext(c: Context<GatehouseEnv>): RequestContext {
  return { ...c.get('gatehouse'), format: 'json', params: c.req.param() as Record<string, string> }
}

/** The guard's rendering of `error`; `null` when it is not gatehouse's to answer. Never throws. */
function render(guard: Guard, error: unknown, req: ApiRequest): ApiResponse | null {
  let rendered: ApiResponse | null
  try {
    rendered = guard.renderError(error, req)
  } catch (handlerError) {
    guard.settings.logError(handlerError, { method: req.method, path: req.url.pathname })
    return null
  }
  // A rendered non-ApiError is still worth a log line (a store fault's 503 had its own in renderError).
  if (rendered !== null && !isApiError(error) && !(rendered.status === 503 && isStoreUnavailable(error))) guard.settings.logError(error, { method: req.method, path: req.url.pathname })
  return rendered
}

/** Replaces the context's response without Hono merging the old one's headers into it. */
function replaceResponse(c: Context, response: Response): void {
  c.res = undefined
  c.res = response
}

/**
 * Middleware running a route's policies (authentication, permissions, throttles) before the
 * app's handler. On success `c.get('user')`, `c.get('auth')` and `c.get('gatehouse')` are
 * set; an `ApiError` from the policies or from the handler answers in DRF's JSON shape
 * (status, `{"detail"}`, `WWW-Authenticate`, `Retry-After`); any other error reaches the
 * app's own `app.onError`.
 *
 * @example
 * app.get('/books/:id', policies(api, { permissions: [new IsAuthenticated()] }), (c) => c.json({ user: c.get('user').username }))
 */
export function policies(guard: Guard, options?: HonoOptions): MiddlewareHandler<GatehouseEnv>
export function policies(api: Api, options?: PoliciesOptions): MiddlewareHandler<GatehouseEnv>
export function policies(source: Api | Guard, options: PoliciesOptions = {}): MiddlewareHandler<GatehouseEnv> {
  const { bodyLimit, ...guardOptions } = options
  const adapterOptions: HonoOptions = bodyLimit === undefined ? {} : { bodyLimit }
  const guard = source instanceof Guard ? source : source.guard(guardOptions)
  return async (c, next) => {
    const req = toApiRequest(c, adapterOptions)
    const consulted: AuthenticationScheme[] = []
    let state: RequestState
    try {
      state = await guard.check(req, consulted)
    } catch (error) {
      const rendered = render(guard, error, req)
      if (rendered === null) throw error
      // A refusal depends on the headers the schemes read too (DRF's Vary on every answer).
      const vary = varyOf(consulted)
      return toResponse(vary.length > 0 ? withHeaders(rendered, [['Vary', vary.join(', ')]]) : rendered)
    }
    c.set('user', state.user)
    c.set('auth', state.auth)
    c.set('gatehouse', state)
    try {
      await next()
    } catch (error) {
      // Hono hands Error throws to app.onError itself; only non-Error throws arrive here.
      const rendered = render(guard, error, req)
      if (rendered === null) throw error
      replaceResponse(c, toResponse(rendered))
    }
    if (c.error !== undefined && isApiError(c.error)) {
      const rendered = render(guard, c.error, req)
      if (rendered !== null) replaceResponse(c, toResponse(rendered))
    }
    // The answer depends on the headers the consulted schemes read (Session: Cookie).
    if (state.vary.length > 0) c.header('Vary', state.vary.join(', '), { append: true })
    return undefined
  }
}

/**
 * Wraps the app's `onError` so ApiErrors thrown on guarded routes answer in DRF's shape
 * before the app's handler sees them (it then logs only real faults). Optional:
 * `policies()` renders ApiErrors either way.
 *
 * @example
 * app.onError(withApiErrors((err, c) => c.json({ error: 'internal' }, 500)))
 */
export function withApiErrors<E extends GatehouseEnv>(handler: ErrorHandler<E>): ErrorHandler<E> {
  return (error, c) => {
    const state = c.get('gatehouse') as RequestState | undefined
    if (state !== undefined && isApiError(error)) {
      const rendered = state.settings.exceptionHandler(error, { request: state.request, authentication: state.settings.authentication })
      if (rendered !== null) return toResponse(rendered)
    }
    return handler(error, c)
  }
}

/**
 * Mounts each route's `ApiView` for every method (`app.all`), so the view answers DRF's
 * 405 itself; the route's `:name` parameters reach `ApiRequest.params`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Hono app, whatever its env and schema
export function mountRoutes<A extends Hono<any, any, any>>(app: A, routes: readonly Route[], options: HonoOptions = {}): A {
  for (const { path, view } of routes) {
    app.all(path, async (c) => toResponse(await view.handle(toApiRequest(c, options))))
  }
  return app
}
