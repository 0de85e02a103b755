// DRF-style views on Fastify: a route handler per view, and `mountRoutes` to mount them in an
// encapsulated scope that hands bodies to the views raw and answers errors in DRF's shape.
import { METHODS } from 'node:http'
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { ApiResponse, ApiView, Route } from '../../index.js'
import { INVALID_HOST_RESPONSE, isPromise, markRoute, routeParamsMatch } from '../../http/index.js'
import { errorHandler, NOT_FOUND, notFound } from './errors.js'
import { sendWire, sendApiResponse } from './reply.js'
import { fastifyApiRequest, oversizedRequest, requestUrl, stringParams, type FastifyOptions } from './request.js'
import { swaggerTransformFor } from './swagger-transform.js'

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
    return isPromise(response) ? response.then((r) => sendWire(reply, r, view.settings)) : sendWire(reply, response, view.settings)
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
    handler: markRoute(
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

/** Options of `mountRoutes`. */
export interface MountOptions {
  /**
   * The path the routes are mounted below (Fastify's register prefix); unknown paths below
   * it answer DRF's 404.
   */
  readonly prefix?: string
}

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
