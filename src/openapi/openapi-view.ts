import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import type { RequestContext, ViewOptions } from '../core/view.js'
import { AllowAny } from '../permissions/allow-any.js'
import { openApiDocument, type OpenApiDocument, type OpenApiDocumentOptions } from './document.js'
import type { DescribedRoute } from './policy-route.js'

/** Options of `openApiView`. */
export interface OpenApiViewOptions extends OpenApiDocumentOptions {
  /**
   * The routes to describe. A function, so the view can describe a list that includes its
   * own route: it is called once, on the first request (`() => openApiRoutes(app)` finds
   * them then, on Fastify, Express and Hono).
   */
  readonly routes: () => readonly DescribedRoute[]
  /** @default 'OpenAPI Schema' */
  readonly name?: string
}

/** Documents kept, one per mount prefix seen (a router may answer one path under several spellings). */
const MAX_CACHED = 8

/**
 * A view serving `openApiDocument(routes())` as JSON (`GET /api/openapi.json`), built on the
 * first request and then reused. Anyone may read it (`AllowAny`); like any other view it
 * runs the API's authentication schemes and throttles, so a bad token is a 401 and a
 * client is throttled as who it is.
 *
 * Mounted under a prefix (`mountRoutes(app, routes, { prefix: '/v1' })` on Fastify and
 * node:http, Express's `app.use('/v1', router)`, Hono's `app.route('/v1', …)`), the view finds the prefix in the
 * request's path (the path it answered, less its own route's path) and writes it as the
 * document's server, `servers: [{ url: '/v1' }]`: the paths stay those of the routes, and
 * a client generated from the document calls the URLs the server answers. Pass `servers`
 * to write your own instead.
 *
 * @example
 * const routes: Route[] = [...]
 * routes.push(route('/api/openapi.json', api.view(openApiView({ routes: () => routes, info: { title: 'Books', version: '1' } }))))
 */
export function openApiView(options: OpenApiViewOptions): ViewOptions {
  const { routes, name, ...documentOptions } = options
  const documents = new Map<string, OpenApiDocument>()
  let ownPath: string | null = null
  const get = async (ctx: RequestContext): Promise<ApiResponse> => {
    const all = routes()
    ownPath ??= all.find((r) => 'view' in r && r.view.declared.handlers.GET === get)?.path ?? ''
    const path = ctx.request.url.pathname
    const prefix = ownPath !== '' && path.length > ownPath.length && path.endsWith(ownPath) ? path.slice(0, -ownPath.length) : ''
    let document = documents.get(prefix)
    if (document === undefined) {
      document = openApiDocument(all, { ...documentOptions, servers: documentOptions.servers ?? [{ url: prefix === '' ? '/' : prefix }] })
      if (documents.size < MAX_CACHED) documents.set(prefix, document)
    }
    return jsonResponse(200, document)
  }
  return {
    name: name ?? 'OpenAPI Schema',
    description: "This API's OpenAPI 3.1 document.",
    permissions: [new AllowAny()],
    // A document, never a browsable page: tools ask with `Accept: */*` or a browser's header.
    formats: ['json'],
    handlers: {
      GET: Object.assign(get, { openApi: { response: { type: 'object', description: 'An OpenAPI 3.1 document.' } } }),
    },
  }
}
