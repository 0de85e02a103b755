import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { ApiRequest } from '../../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../../core/api-response.js'
import type { Api } from '../../core/api.js'
import { answerError, INVALID_HOST_RESPONSE } from '../../core/error-answer.js'
import { answerHandlerError, Guard, resolveGuard, type GuardOptions } from '../../core/guard.js'
import type { RequestContext } from '../../core/pipeline.js'
import { createApiRequest } from '../../core/request/request-factory.js'
import { DEFAULT_SETTINGS } from '../../core/settings.js'
import { matchRoutes, type Route } from '../../core/route.js'
import { targetPath } from '../../core/request/url-decoding.js'
import { requestUrlOf } from '../../core/request/request-url.js'
import { WRITE_FAILED_RESPONSE } from '../../core/sendable-response.js'
import type { ApiView } from '../../core/view.js'
import { copyMark, markPolicies, type OpenApiRouteOptions } from '../../openapi/policy-route.js'

/** How the node:http adapter reads a request. */
export interface NodeHttpOptions {
  /**
   * Believe `X-Forwarded-Proto` (set it only behind a proxy that overwrites the header).
   * @default false
   */
  readonly trustProxy?: boolean
  /** Largest request body read, in bytes; a larger one answers 413. @default 1048576 (1 MiB, as Fastify) */
  readonly bodyLimit?: number
}

/** Options of `router`. */
export interface NodeRouterOptions extends NodeHttpOptions {
  /**
   * A path the routes are mounted under (`'/v1'`: `route('/books/', …)` answers `/v1/books/`).
   * Requests outside it are DRF's 404. @default none
   */
  readonly prefix?: string
}

const DEFAULT_BODY_LIMIT = 1024 * 1024

import { headerBag, readBody, writeNodeResponse } from './node-io.js'

/**
 * The absolute request URL from the `Host` header and the request target; `null`
 * when the Host header is missing or is not a bare `host[:port]` (a Host such as
 * `a/b?` must not be able to rewrite the path that page links are built from).
 */
export function requestUrl(req: IncomingMessage, options: NodeHttpOptions = {}): URL | null {
  let protocol = 'encrypted' in req.socket && req.socket.encrypted === true ? 'https' : 'http'
  if (options.trustProxy === true) {
    const forwarded = req.headers['x-forwarded-proto']
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase()
    if (first === 'http' || first === 'https') protocol = first
  }
  return requestUrlOf(protocol, req.headers.host, req.url ?? '/')
}

/**
 * Translates a node:http request into an `ApiRequest` (the body is read only when
 * a view asks for it). `null` when the Host header cannot form a URL: answer 400.
 */
export function toApiRequest(
  req: IncomingMessage,
  options: NodeHttpOptions = {},
  params?: Readonly<Record<string, string>>,
): ApiRequest | null {
  const url = requestUrl(req, options)
  if (url === null) return null
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: req.method ?? 'GET',
    url,
    headers: headerBag(req.headers),
    remoteAddress: req.socket.remoteAddress ?? null,
    ...(params === undefined ? {} : { params }),
    readBody: () => readBody(req, limit),
  })
}

/**
 * Writes an `ApiResponse` to a node:http response (each `Set-Cookie` on its own line) and never
 * throws: a response HTTP cannot carry (a header value Node refuses) is answered
 * `500 {"detail": "A server error occurred."}` and logged once (through the route's `logError`
 * when `policies()` ran on the request).
 */
export function writeResponse(res: ServerResponse, response: ApiResponse): void {
  writeNodeResponse(res, response, contexts.get(res.req)?.settings ?? DEFAULT_SETTINGS)
}

const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })

/** A node:http request listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/** Answers every request with `view` (which never throws); a malformed Host is a 400. */
export function viewHandler(
  view: ApiView,
  options: NodeHttpOptions = {},
  params?: Readonly<Record<string, string>>,
): NodeHandler {
  return (req, res) => serveView(view, options, req, res, params).catch((error: unknown) => lastResort(error, req, res))
}

/** One request answered by `view` (which never throws); a malformed Host is a 400. */
async function serveView(
  view: ApiView,
  options: NodeHttpOptions,
  req: IncomingMessage,
  res: ServerResponse,
  params: Readonly<Record<string, string>> | undefined,
): Promise<void> {
  const request = toApiRequest(req, options, params)
  const response = request === null ? INVALID_HOST_RESPONSE : await view.handle(request)
  // A body left unread past the limit is not drained: the connection closes instead.
  if (response.status === 413 && !req.complete) res.setHeader('Connection', 'close')
  writeNodeResponse(res, response, view.settings)
}

/**
 * Routes requests to views: `routes` is a list of `Route`s (`route('/books/:id/', view)`, path
 * parameters reach `ctx.params`). The query is ignored and the trailing slash is significant,
 * as in DRF's URL conf; the path is matched percent-decoded (`%2F` is a `/`) and
 * case-sensitively, with dot segments kept as sent (`/api/./x/` is no route, as in Django);
 * an unknown path is DRF's 404 `Not found.`. A handler to compose with your own;
 * `mountRoutes` installs it on a server.
 */
export function router(routes: readonly Route[], options: NodeRouterOptions = {}): NodeHandler {
  const match = matchRoutes(routes)
  const prefix = (options.prefix ?? '').replace(/\/$/, '')
  return (req, res) => route(req, res).catch((error: unknown) => lastResort(error, req, res))
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req, options)
    if (url === null) return writeResponse(res, INVALID_HOST_RESPONSE)
    // The path as sent (a URL object would resolve `/./` and `/../`, which Django routes as they are).
    const target = req.url ?? '/'
    const path = target.startsWith('/') ? targetPath(target) : url.pathname
    if (prefix !== '' && !path.startsWith(`${prefix}/`)) return writeResponse(res, NOT_FOUND)
    const found = match(path.slice(prefix.length))
    if (found === null) return writeResponse(res, NOT_FOUND)
    return serveView(found.route.view, options, req, res, found.params)
  }
}

/**
 * What a listener does with an error nothing else caught (a bug): logs it and answers 500, or
 * ends the connection when the headers are already out; never an unhandled rejection.
 */
function lastResort(error: unknown, req: IncomingMessage, res: ServerResponse): void {
  DEFAULT_SETTINGS.logError(error, { method: req.method ?? 'GET', path: targetPath(req.url ?? '/') })
  if (res.headersSent) {
    res.destroy()
    return
  }
  for (const name of res.getHeaderNames()) res.removeHeader(name)
  writeNodeResponse(res, WRITE_FAILED_RESPONSE, DEFAULT_SETTINGS)
}

/**
 * Mounts DRF-style views on a node:http server: each request is answered by the view its
 * path matches (which answers 405 itself), an unknown path by DRF's 404 (see `router`).
 *
 * @example
 * const server = mountRoutes(createServer(), [route('/api/books/:id/', book)])
 * server.listen(8000)
 */
export function mountRoutes<S extends Server>(target: S, routes: readonly Route[], options: NodeRouterOptions = {}): S {
  target.on('request', router(routes, options))
  return target
}

/** Options of `policies(api, options)`: the route's policies, how its request is read, what OpenAPI says of it. */
export interface PoliciesOptions extends GuardOptions, NodeHttpOptions, OpenApiRouteOptions {}

/** Wraps an app's own handler so it runs only once the route's policies passed: what `policies()` returns. */
export type NodeMiddleware = (handler: NodeHandler | ((req: IncomingMessage, res: ServerResponse) => void)) => NodeHandler

const ADAPTER_KEYS: readonly (keyof PoliciesOptions)[] = ['trustProxy', 'bodyLimit', 'openApi']
const contexts = new WeakMap<IncomingMessage, RequestContext>()

/**
 * Middleware style on plain node:http: `policies(api, { … })` wraps the app's own handler so
 * that the route's policies (allowed host, authentication, permissions, throttles) run first.
 * A refusal answers in DRF's shape (status, `{"detail"}`, `WWW-Authenticate`, `Retry-After`,
 * `Vary`) and the handler does not run; otherwise the handler runs with `requestContext(req)`
 * available and the `Vary` the consulted schemes need already set. An error the handler
 * throws is answered as `errorHandler()` answers it (node:http has no error chain).
 *
 * @example
 * const guarded = policies(api, { permissions: [new IsAuthenticated()] })
 * createServer(guarded((req, res) => {
 *   res.end(JSON.stringify({ username: requestContext(req).user.username }))
 * }))
 */
export function policies(guard: Guard, options?: NodeHttpOptions & OpenApiRouteOptions): NodeMiddleware
export function policies(api: Api, options?: PoliciesOptions): NodeMiddleware
export function policies(source: Api | Guard, options: PoliciesOptions = {}): NodeMiddleware {
  const guard = resolveGuard(source, options, ADAPTER_KEYS)
  const adapterOptions: NodeHttpOptions = {
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
  }
  // node:http has no router: `policyRoute(method, path, guarded)` declares the route to OpenAPI documents.
  const middleware: NodeMiddleware = (handler) => copyMark(middleware, async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const result = await guard.run(toApiRequest(req, adapterOptions))
    if (result.response !== null) return writeNodeResponse(res, result.response, guard.settings)
    const context = result.context
    contexts.set(req, context)
    if (context.vary.length > 0) res.setHeader('Vary', context.vary.join(', '))
    try {
      await handler(req, res)
    } catch (error) {
      if (res.headersSent) {
        context.settings.logError(error, { method: context.request.method, path: context.request.url.pathname })
        res.destroy()
        return
      }
      for (const name of res.getHeaderNames()) res.removeHeader(name)
      writeResponse(res, answerHandlerError(error, context))
    }
  })
  return markPolicies(middleware, guard, { ...options, name: source instanceof Guard ? undefined : options.name })
}

/**
 * The handler context of a request `policies()` let through, for the core's helpers that take
 * one (`paginatedList(requestContext(req), …)`): JSON format, the route's params. Throws when
 * `policies()` did not run on the request.
 */
export function requestContext(req: IncomingMessage): RequestContext {
  const context = contexts.get(req)
  if (context === undefined) throw new Error('gatehouse: requestContext() needs policies() to have run on this request')
  return context
}

/** Answers an error in DRF's shape: what `errorHandler()` returns. */
export type NodeErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse) => void

/**
 * Answers errors of the app's own handlers in DRF's shape, as the other adapters' error
 * handlers do: an error of a guarded request through the route's exception handler (with its
 * `Vary`), any other error as a logged `500 {"detail": "A server error occurred."}` (through
 * `api`'s settings when given). `policies()` already answers its handler's errors this way.
 *
 * @example
 * const onError = errorHandler(api)
 * createServer((req, res) => { handle(req, res).catch((error) => onError(error, req, res)) })
 */
export function errorHandler(api?: Api, options: NodeHttpOptions = {}): NodeErrorHandler {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  return (error, req, res) => {
    if (res.headersSent) {
      settings.logError(error, { method: req.method ?? 'GET', path: req.url ?? '/' })
      res.destroy()
      return
    }
    const context = contexts.get(req)
    if (context !== undefined) return writeResponse(res, answerHandlerError(error, context))
    const request = toApiRequest(req, options)
    writeResponse(res, request === null ? INVALID_HOST_RESPONSE : answerError(error, request, settings))
  }
}
