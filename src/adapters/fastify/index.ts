import { METHODS } from 'node:http'
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  preHandlerHookHandler,
} from 'fastify'
import type { Api } from '../../core/api.js'
import type { ApiRequest } from '../../core/api-request.js'
import { jsonResponse, serializeBody, type ApiResponse } from '../../core/api-response.js'
import type { Guard, GuardOptions } from '../../core/guard.js'
import { PayloadTooLarge } from '../../core/errors.js'
import { createApiRequest, type RawRequest } from '../../core/request-factory.js'
import type { Route } from '../../core/route.js'
import { routingPath, targetPath } from '../../core/url-decoding.js'
import type { User } from '../../core/user.js'
import type { ApiView, RequestContext } from '../../core/view.js'
import { headerBag } from '../node-http/index.js'
import { guardSwaggerTransform, swaggerTransformFor } from './swagger-transform.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The user gatehouse authenticated on a guarded route; `null` on routes it does not guard. */
    user: User | null
    /** The credentials of the scheme that authenticated (a token record, …); `null` when none. */
    auth: unknown
    /**
     * The guarded request's context (state, JSON format, path params), for helpers that take one:
     * `sendApiResponse(reply, await paginatedList(request.gatehouse!, paginator, source, serialize))`.
     * `null` on routes gatehouse does not guard.
     */
    gatehouse: RequestContext | null
  }
  interface FastifyContextConfig {
    /** Per-route gatehouse policies (`{ config: { gatehouse: { permissions: [IsAuthenticated] } } }`). */
    gatehouse?: GuardOptions
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

/** Builds the absolute request URL (as the client sent it); `null` when the Host header cannot form one. */
function requestUrl(request: FastifyRequest): URL | null {
  try {
    return new URL(request.originalUrl, `${request.protocol}://${request.host}`)
  } catch {
    return null
  }
}

/**
 * Translates a Fastify request into an `ApiRequest`. A Buffer body (gatehouse's raw parser)
 * is parsed by the core with DRF's rules; a body Fastify already parsed (the app's own JSON
 * or text parser) is handed over as it is.
 */
export function toApiRequest(request: FastifyRequest, url: URL): ApiRequest {
  const body: unknown = request.body
  return createApiRequest({
    ...requestParts(request, url),
    readBody: async () => (Buffer.isBuffer(body) ? new Uint8Array(body) : null),
    ...(body === undefined || body === null || Buffer.isBuffer(body) ? {} : { parsedBody: () => ({ data: body }) }),
  })
}

/** An ApiRequest whose body was refused for its size: reading it throws `PayloadTooLarge`. */
function oversizedRequest(request: FastifyRequest, url: URL): ApiRequest {
  return createApiRequest({ ...requestParts(request, url), readBody: () => Promise.reject(new PayloadTooLarge()) })
}

/** What every ApiRequest of a Fastify request shares, whatever its body. */
function requestParts(request: FastifyRequest, url: URL): Omit<RawRequest, 'readBody' | 'parsedBody'> {
  return {
    method: request.method,
    url,
    headers: headerBag(request.headers),
    remoteAddress: request.socket.remoteAddress ?? null,
    params: stringParams(request.params),
  }
}

/** Fastify's decoded path parameters, keeping only string values (a wildcard `*` included). */
function stringParams(params: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (typeof params !== 'object' || params === null) return out
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string') out[key] = value
  return out
}

/** Writes an `ApiResponse` to a Fastify reply. */
export function writeResponse(reply: FastifyReply, response: ApiResponse): FastifyReply {
  reply.code(response.status)
  const setCookies: string[] = []
  for (const [name, value] of response.headers) {
    if (name.toLowerCase() === 'set-cookie') setCookies.push(value)
    else reply.header(name, value)
  }
  if (setCookies.length > 0) reply.header('set-cookie', setCookies)
  const body = serializeBody(response)
  // A Buffer keeps Fastify from appending `; charset=utf-8` (DRF sends bare `application/json`).
  return body === undefined ? reply.send() : reply.send(Buffer.from(body))
}

/**
 * Sends an `ApiResponse` (from `paginatedList`, `jsonResponse`, …) from an app's own handler:
 * `return sendApiResponse(reply, await paginatedList(…))`.
 */
export function sendApiResponse(reply: FastifyReply, response: ApiResponse): FastifyReply {
  return writeResponse(reply, response)
}

const INVALID_HOST = { detail: 'Invalid Host header.' }

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

function mountOne(app: FastifyInstance, path: string, view: ApiView, views?: Map<string, ApiView>): void {
  // Keyed as Fastify reports the route (`request.routeOptions.url`), register prefix included.
  views?.set(`${app.prefix}${path}`, view)
  app.route({
    method: [...app.supportedMethods],
    url: path,
    exposeHeadRoute: false,
    // Read by @fastify/swagger when the app registers it: the view's operations, described
    // without a route `schema` (which would make Fastify validate and serialize).
    config: { swaggerTransform: swaggerTransformFor(view) },
    handler: async (request, reply) => {
      const url = requestUrl(request)
      if (url === null) return writeResponse(reply, jsonResponse(400, INVALID_HOST))
      return writeResponse(reply, await view.handle(toApiRequest(request, url)))
    },
  })
}

/**
 * Installs, on one encapsulated instance, the raw-body parser and DRF-shaped 404 / framework
 * errors. `views` (path → view) lets a body refused for its size reach its view, which
 * answers the 413 when it reads the body, after its own checks and with its Allow and Vary,
 * as on every other adapter (and as Django raises only once the body is read).
 */
function installDrfScope(app: FastifyInstance, views?: ReadonlyMap<string, ApiView>): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
  app.setNotFoundHandler((_request, reply) => writeResponse(reply, jsonResponse(404, { detail: 'Not found.' })))
  app.setErrorHandler(async (error: { statusCode?: number }, request, reply) => {
    const view = views?.get(request.routeOptions.url ?? '')
    // Fastify refuses a QUERY without Content-Type before the handler: the view answers it
    // (405 or 401/403, as DRF); it has no QUERY handler that would read the body.
    if ((error as { code?: unknown }).code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE' && view !== undefined) {
      const url = requestUrl(request)
      if (url === null) return writeResponse(reply, jsonResponse(400, INVALID_HOST))
      return writeResponse(reply, await view.handle(toApiRequest(request, url)))
    }
    if (error.statusCode === 413 && view !== undefined) {
      const url = requestUrl(request)
      if (url === null) return writeResponse(reply, jsonResponse(400, INVALID_HOST))
      // The body was not read to its end: close rather than drain it.
      reply.header('connection', 'close')
      return writeResponse(reply, await view.handle(oversizedRequest(request, url)))
    }
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) request.log.error(error)
    const detail =
      status === 413 ? 'Request body is too large.' : status === 500 ? 'A server error occurred.' : 'Malformed request.'
    return writeResponse(reply, jsonResponse(status, { detail }))
  })
}

/** Options of the `gatehouseViews` plugin. */
export interface GatehouseViewsOptions {
  /** The views to mount (`route('/books/:id/', view)`); paths are relative to `prefix`. */
  readonly routes: readonly Route[]
  /** Fastify's own register prefix; the DRF 404 answers only below it. */
  readonly prefix?: string
}

/**
 * DRF-style views as an encapsulated Fastify plugin: `app.register(gatehouseViews, { routes, prefix: '/api' })`.
 * Inside its own scope only, bodies reach the core as raw bytes (DRF's parse, 415 and form
 * rules), unknown paths below `prefix` answer `404 {"detail": "Not found."}` and framework
 * errors (413 …) answer in DRF's shape. Each view is mounted for every method Node accepts,
 * extension methods such as PROPFIND included (it answers 405 itself; registering the plugin
 * adds those methods to the instance's list) and receives the route's path parameters in `ApiRequest.params`. Parsers and
 * handlers of the rest of the app are untouched.
 */
export const gatehouseViews: FastifyPluginAsync<GatehouseViewsOptions> = async (scope, options) => {
  const views = new Map<string, ApiView>()
  installDrfScope(scope, views)
  routeEveryMethod(scope)
  for (const r of options.routes) mountOne(scope, r.path, r.view, views)
}

/** Options of the `gatehouse` plugin. */
export interface GatehouseOptions {
  /** Where guards take their global settings from (`createApi({ … })`). */
  readonly api: Api
  /**
   * The app's routes to guard, registered inside gatehouse's scope (hooks and the error
   * handler of an encapsulated plugin reach only its own routes). Routes declare their
   * policies in `config.gatehouse`; routes without it are left alone.
   */
  readonly plugin?: FastifyPluginAsync
}

interface Guarded {
  readonly guard: Guard
  readonly request: ApiRequest
}

/**
 * Middleware style as an encapsulated Fastify plugin: `app.register(gatehouse, { api, plugin })`.
 * Every route in its scope with `config: { gatehouse: GuardOptions }` gets a `Guard`, built
 * when the route is registered (a bad option stops start-up, never a request), that runs in
 * `preHandler` and sets `request.user` / `request.auth`. ApiErrors thrown by the guard or by
 * the route's handler are answered in DRF's JSON (status, `detail`, WWW-Authenticate,
 * Retry-After); every other error is rethrown to the app's own error handler. Routes keep
 * Fastify's parsers: `ApiRequest.body()` returns what Fastify parsed.
 */
export const gatehouse: FastifyPluginAsync<GatehouseOptions> = async (scope, options) => {
  const seen = new WeakMap<FastifyRequest, Guarded>()
  scope.decorateRequest('user', null)
  scope.decorateRequest('auth', null)
  scope.decorateRequest('gatehouse', null)
  scope.addHook('onRoute', (routeOptions) => {
    const guardOptions = routeOptions.config?.gatehouse
    if (guardOptions === undefined) return
    const guard = options.api.guard({ name: `${routeOptions.method.toString()} ${routeOptions.url}`, ...guardOptions })
    // Read by @fastify/swagger when the app registers it: the guard's security requirements (document only).
    const config: Record<string, unknown> = { ...routeOptions.config }
    if (config['swaggerTransform'] === undefined) {
      config['swaggerTransform'] = guardSwaggerTransform(guard)
      routeOptions.config = config as NonNullable<typeof routeOptions.config>
    }
    const check: preHandlerHookHandler = async function (request, reply) {
      const url = requestUrl(request)
      if (url === null) return writeResponse(reply, jsonResponse(400, INVALID_HOST))
      const apiRequest = toApiRequest(request, url)
      seen.set(request, { guard, request: apiRequest })
      const state = await guard.check(apiRequest)
      request.user = state.user
      request.auth = state.auth
      // The app owns rendering in this style, so the context's format is always JSON.
      request.gatehouse = { ...state, format: 'json', params: apiRequest.params }
      if (state.vary.length > 0) addVary(reply, state.vary)
      return undefined
    }
    const existing = routeOptions.preHandler
    // Gatehouse runs first: the app's own preHandlers already see `request.user`.
    routeOptions.preHandler = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])]
  })
  scope.setErrorHandler(async (error: FastifyError, request, reply) => {
    const guarded = seen.get(request)
    const rendered = guarded === undefined ? null : guarded.guard.renderError(error, guarded.request)
    // Not ours (or not a guarded route): Fastify hands a rethrown error to the parent's handler.
    if (rendered === null) throw error
    return writeResponse(reply, rendered)
  })
  if (options.plugin !== undefined) await scope.register(options.plugin)
}

function addVary(reply: FastifyReply, names: readonly string[]): void {
  const current = reply.getHeader('vary')
  const list = typeof current === 'string' && current !== '' ? current.split(',').map((s) => s.trim()) : []
  for (const name of names) if (!list.some((v) => v.toLowerCase() === name.toLowerCase())) list.push(name)
  reply.header('vary', list.join(', '))
}

/**
 * Mounts a gatehouse view at `path` for every method Fastify routes (TRACE and QUERY
 * included), so the view answers DRF's 405 `Method "X" not allowed.` itself.
 *
 * @deprecated Register the encapsulated plugin instead: `app.register(gatehouseViews, { routes: [route(path, view)] })`.
 */
export function mountView(app: FastifyInstance, path: string, view: ApiView): void {
  mountOne(app, path, view)
}

/**
 * Prepares a Fastify instance for gatehouse views: bodies reach the core as raw bytes
 * and framework-level errors answer in DRF's `{"detail": …}` shape. It changes the
 * instance it is given (all its parsers, its 404 and error handlers).
 *
 * @deprecated Register the encapsulated plugin `gatehouseViews` instead, which changes nothing outside its own scope.
 */
export function setupFastify(app: FastifyInstance): void {
  installDrfScope(app)
}
