import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { ApiRequest } from '../../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../../core/api-response.js'
import type { Api } from '../../core/api.js'
import { errorResponse, INVALID_HOST_RESPONSE } from '../../core/exception-handler.js'
import { Policies, resolvePolicies, type PolicyOptions, type PoliciesResult } from '../../core/policies.js'
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
  /** Path parameters of the request (`{ id: '7' }`), when your own routing matched them. @default none */
  readonly params?: Readonly<Record<string, string>>
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
export function toApiRequest(req: IncomingMessage, options: NodeHttpOptions = {}): ApiRequest | null {
  return nodeApiRequest(req, options, options.params)
}

/** `toApiRequest` with the route's parameters apart from the options (no options object per request). */
function nodeApiRequest(req: IncomingMessage, options: NodeHttpOptions, routeParams: Readonly<Record<string, string>> | undefined): ApiRequest | null {
  const url = requestUrl(req, options)
  if (url === null) return null
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: req.method ?? 'GET',
    url,
    headers: headerBag(req.headers),
    remoteAddress: req.socket.remoteAddress ?? null,
    ...(routeParams === undefined ? {} : { params: routeParams }),
    readBody: () => readBody(req, limit),
  })
}

/**
 * Writes an `ApiResponse` to a node:http response (each `Set-Cookie` on its own line) and never
 * throws: a response HTTP cannot carry (a header value Node refuses) is answered
 * `500 {"detail": "A server error occurred."}` and logged once (through the route's `logError`
 * when `policies()` ran on the request).
 */
export function sendApiResponse(res: ServerResponse, response: ApiResponse): void {
  writeNodeResponse(res, response, contexts.get(res.req)?.settings ?? DEFAULT_SETTINGS)
}

const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })

/**
 * A listener answering DRF's `404 {"detail": "Not found."}`, for the requests your own routing
 * found no handler for (`router` already answers unknown paths so).
 */
export function notFound(_req: IncomingMessage, res: ServerResponse): Promise<void> {
  return answer(res, NOT_FOUND)
}

/**
 * A node:http request listener. A listener gatehouse made also takes the request's path
 * parameters, for an app that matched the route itself (`guarded(req, res, { id })`).
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, params?: Readonly<Record<string, string>>) => Promise<void>

/** Answers every request with `view` (which never throws); a malformed Host is a 400. */
export function viewHandler(view: ApiView, options: NodeHttpOptions = {}): NodeHandler {
  const fixed = options.params
  return (req, res, given) => serveView(view, options, req, res, given ?? fixed)
}

/** One request answered by `view` (which never throws); a malformed Host is a 400. Never rejects. */
function serveView(
  view: ApiView,
  options: NodeHttpOptions,
  req: IncomingMessage,
  res: ServerResponse,
  params: Readonly<Record<string, string>> | undefined,
): Promise<void> {
  try {
    const request = nodeApiRequest(req, options, params)
    if (request === null) {
      writeNodeResponse(res, INVALID_HOST_RESPONSE, view.settings)
      return DONE
    }
    const answer = view.handle(request) as ApiResponse | Promise<ApiResponse>
    // A view that answered synchronously is written now: no promise of ours in between.
    if (!(answer instanceof Promise)) {
      writeView(view, req, res, answer)
      return DONE
    }
    return answer.then(
      (response) => writeView(view, req, res, response),
      (error: unknown) => lastResort(error, req, res),
    )
  } catch (error) {
    lastResort(error, req, res)
    return DONE
  }
}

const DONE: Promise<void> = Promise.resolve()

function writeView(view: ApiView, req: IncomingMessage, res: ServerResponse, response: ApiResponse): void {
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
  return (req, res) => {
    try {
      const target = req.url ?? '/'
      // The path as sent (a URL object would resolve `/./` and `/../`, which Django routes as they are).
      let path: string
      if (target.startsWith('/')) path = targetPath(target)
      else {
        const url = requestUrl(req, options)
        if (url === null) return answer(res, INVALID_HOST_RESPONSE)
        path = url.pathname
      }
      if (prefix !== '' && !path.startsWith(`${prefix}/`)) return answer(res, routeMiss(req))
      const found = match(path.slice(prefix.length))
      if (found === null) return answer(res, routeMiss(req))
      return serveView(found.route.view, options, req, res, found.params)
    } catch (error) {
      lastResort(error, req, res)
      return DONE
    }
  }
  /** No route: DRF's 404, or the 400 of a Host that cannot form a URL (as a view would answer first). */
  function routeMiss(req: IncomingMessage): ApiResponse {
    return requestUrl(req, options) === null ? INVALID_HOST_RESPONSE : NOT_FOUND
  }
}

/**
 * What a listener does with an error nothing else caught (a bug): logs it and answers 500, or
 * ends the connection when the headers are already out; never an unhandled rejection.
 */
function answer(res: ServerResponse, response: ApiResponse): Promise<void> {
  sendApiResponse(res, response)
  return DONE
}

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
interface PoliciesOptions extends PolicyOptions, NodeHttpOptions, OpenApiRouteOptions {
  /**
   * The route's path pattern (`'/api/books/:id/'`, the syntax of `route()`): its parameters
   * fill `requestContext(req).params`, matched as `router` matches (percent-decoded path,
   * trailing slash significant), and a request whose path it does not match is DRF's 404
   * without running the policies. Without it, pass the parameters your own routing found to
   * the guarded handler: `guarded(req, res, { id })`. @default none
   */
  readonly path?: string
}

/** An app's own handler behind `policies()`. */
export type OwnHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>

/** Wraps an app's own handler so it runs only once the route's policies passed: what `policies()` returns. */
export type NodeMiddleware = (handler: OwnHandler) => NodeHandler

const ADAPTER_KEYS: readonly (keyof PoliciesOptions)[] = ['trustProxy', 'bodyLimit', 'params', 'path', 'openApi']
const contexts = new WeakMap<IncomingMessage, RequestContext>()

/**
 * Middleware style on plain node:http: `policies(api, { … })` wraps the app's own handler so
 * that the route's policies (allowed host, authentication, permissions, throttles) run first.
 * A refusal answers in DRF's shape (status, `{"detail"}`, `WWW-Authenticate`, `Retry-After`,
 * `Vary`) and the handler does not run; otherwise the handler runs with `requestContext(req)`
 * available and the `Vary` the consulted schemes need already set. An error the handler
 * throws is answered as `errorHandler()` answers it (node:http has no error chain). Path
 * parameters come from `options.path`, or from the caller: `guarded(req, res, { id: '7' })`.
 *
 * @example
 * const guarded = policies(api, { path: '/books/:id/', permissions: [new IsAuthenticated()] })
 * createServer(guarded((req, res) => {
 *   const { user, params } = requestContext(req)
 *   sendApiResponse(res, jsonResponse(200, { username: user.username, id: params['id'] }))
 * }))
 */
export function policies(routePolicies: Policies, options?: NodeHttpOptions & OpenApiRouteOptions & Pick<PoliciesOptions, 'path'>): NodeMiddleware
export function policies(api: Api, options?: PoliciesOptions): NodeMiddleware
export function policies(source: Api | Policies, options: PoliciesOptions = {}): NodeMiddleware {
  const routePolicies = resolvePolicies(source, options, ADAPTER_KEYS)
  const adapterOptions: NodeHttpOptions = {
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
  }
  const match = options.path === undefined ? null : matchRoutes([{ path: options.path }])
  // node:http has no router: `policyRoute(method, path, guarded)` declares the route to OpenAPI documents.
  const middleware: NodeMiddleware = (handler) =>
    copyMark(middleware, (req: IncomingMessage, res: ServerResponse, given?: Readonly<Record<string, string>>): Promise<void> => {
      let params = given ?? options.params
      if (match !== null) {
        const target = req.url ?? '/'
        const found = match(target.startsWith('/') ? targetPath(target) : (requestUrl(req, adapterOptions)?.pathname ?? ''))
        if (found === null) return answer(res, requestUrl(req, adapterOptions) === null ? INVALID_HOST_RESPONSE : NOT_FOUND)
        params ??= found.params
      }
      try {
        const result = routePolicies.run(nodeApiRequest(req, adapterOptions, params))
        // Policies that all answered synchronously: the handler runs now, without a promise of ours.
        if (!(result instanceof Promise)) {
          const done = afterPolicies(result, handler, routePolicies, req, res)
          return done instanceof Promise ? done : DONE
        }
        return result.then(
          (settled) => afterPolicies(settled, handler, routePolicies, req, res),
          (error: unknown) => lastResort(error, req, res),
        )
      } catch (error) {
        lastResort(error, req, res)
        return DONE
      }
    })
  return markPolicies(middleware, routePolicies, { ...options, name: source instanceof Policies ? undefined : options.name })
}

/** Answers a refusal, or runs the app's handler on a request the policies let through. */
function afterPolicies(result: PoliciesResult, handler: OwnHandler, routePolicies: Policies, req: IncomingMessage, res: ServerResponse): Promise<void> | void {
  if (result.response !== null) return writeNodeResponse(res, result.response, routePolicies.settings)
  return runOwn(handler, result.context, req, res)
}

/** Runs the app's handler on a request its policies let through; its errors are answered in DRF's shape. */
function runOwn(handler: OwnHandler, context: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> | void {
  contexts.set(req, context)
  if (context.vary.length > 0) res.setHeader('Vary', context.vary.join(', '))
  const failed = (error: unknown): void => {
    if (res.headersSent) {
      context.settings.logError(error, { method: context.request.method, path: context.request.url.pathname })
      res.destroy()
      return
    }
    for (const name of res.getHeaderNames()) res.removeHeader(name)
    sendApiResponse(res, errorResponse(error, context))
  }
  try {
    const done = handler(req, res)
    if (done instanceof Promise) return done.then(undefined, failed)
  } catch (error) {
    failed(error)
  }
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
    sendApiResponse(res, errorResponse(error, contexts.get(req) ?? { request: toApiRequest(req, options), settings }))
  }
}
