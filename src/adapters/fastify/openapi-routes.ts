import type { FastifyInstance, RouteOptions } from 'fastify'
import { ConfigurationError, type DescribedRoute, type OperationDescription } from '../../index.js'
import { describedRoutes, writeOpenApi } from '../../http/index.js'
import type { SwaggerTransformArgs, SwaggerTransformResult } from './swagger-transform.js'

/** One route as `describedRoutes` reads it. */
type FrameworkRoute = Parameters<typeof describedRoutes>[0] extends Iterable<infer R> ? R : never
/** An own route guarded by `policies()`, as `describedRoutes` answers it. */
type PolicyRoute = Exclude<DescribedRoute, { readonly view: unknown }>

/** The routes registered on each app since `openApiRoutes(app)` first ran on it (Fastify lists routes only as they are added). */
const registered = new WeakMap<FastifyInstance, Registered[]>()

/**
 * A route as registered: its options (read when described, so later `onRoute` hooks' changes
 * count, such as the `gatehouse` plugin's preHandler) and the handlers it had when our hook saw
 * it (a later hook may wrap the handler, as `drfErrors` does).
 */
interface Registered {
  readonly options: RouteOptions
  readonly handlers: readonly unknown[]
}

/** A line of `printRoutes()` naming a route's methods (`└── books/ (GET, HEAD)`): the router has a route. */
const HAS_ROUTE = / \([A-Z-]+(?:, [A-Z-]+)*\)$/m

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A route's handlers as `describedRoutes` reads them: its handler, then its preHandlers. */
function handlersOf(options: RouteOptions): unknown[] {
  const pre = options.preHandler
  return [options.handler, ...(pre === undefined ? [] : Array.isArray(pre) ? pre : [pre])]
}

/** A route's methods, one entry each. */
function entriesOf(options: RouteOptions, seen: readonly unknown[] = []): FrameworkRoute[] {
  const methods = Array.isArray(options.method) ? options.method : [options.method]
  const handlers = [...seen, ...handlersOf(options)]
  return methods.map((method) => ({ method: String(method), path: options.url, handlers }))
}

/**
 * What a route's Fastify `schema` says, under what `policies(api, { openApi })` said: its
 * `body` as the request body, its first 2xx `response` as the answer (as @fastify/swagger
 * reads them). The policies' own description wins key by key.
 */
function withRouteSchema(route: PolicyRoute, options: RouteOptions): PolicyRoute {
  const schema = options.schema
  if (!isRecord(schema)) return route
  const fromSchema: Record<string, unknown> = {}
  if (isRecord(schema['body'])) fromSchema['requestBody'] = schema['body']
  const responses = schema['response']
  if (isRecord(responses)) {
    const success = Object.keys(responses).find((code) => /^2\d\d$/.test(code))
    const body = success === undefined ? undefined : responses[success]
    if (success !== undefined && isRecord(body)) {
      fromSchema['status'] = Number(success)
      // @fastify/swagger's `{ description, content }` form is left to the policies' description.
      if (!('content' in body)) fromSchema['response'] = body
    }
  }
  if (Object.keys(fromSchema).length === 0) return route
  return { ...route, openApi: { ...(fromSchema as OperationDescription), ...route.openApi } }
}

/** The described routes of one Fastify route. */
function describedOf(options: RouteOptions, seen: readonly unknown[] = []): DescribedRoute[] {
  return describedRoutes(entriesOf(options, seen)).map((r) => ('view' in r ? r : withRouteSchema(r, options)))
}

/**
 * The `config.swaggerTransform` of a route of yours guarded by `policies()`: @fastify/swagger
 * gets the route's operations as `openApiDocument` describes them (security, 401/403/429,
 * paginated envelope; its Fastify `schema`'s body and 2xx response when `openApi` does not
 * say) in place of its own description.
 */
function policySwaggerTransform(options: RouteOptions, seen: readonly unknown[]): (args: SwaggerTransformArgs) => SwaggerTransformResult | { readonly schema: unknown; readonly url: string } {
  return ({ url, schema, openapiObject }) => {
    if (!isRecord(openapiObject) || typeof openapiObject['openapi'] !== 'string') return { schema, url }
    writeOpenApi(openapiObject, describedOf(options, seen).flatMap((r) => ('view' in r ? [] : [{ ...r, path: url }])))
    return { schema: { hide: true }, url }
  }
}

/**
 * The routes of a Fastify app that OpenAPI documents describe (`openApiDocument`,
 * `openApiView`'s `routes`): each view `mountRoutes` mounted, and each route of your own with
 * `preHandler: policies(api, { openApi })`, for its methods and its full path (register
 * prefixes included). Its Fastify `schema` fills in what `openApi` leaves out (`body`, the 2xx
 * `response`), as @fastify/swagger reads it; and @fastify/swagger, when registered, describes
 * those routes the same way.
 *
 * Fastify lists routes only as they are added (its `onRoute` hook): call `openApiRoutes(app)`
 * once on the root instance **before** registering routes, as you register @fastify/swagger;
 * each later call answers the routes added since (so order does not matter after that first
 * call). Called first on an app that already has routes or already started, it throws a
 * `ConfigurationError` saying so, never a document missing those routes.
 *
 * @example
 * openApiRoutes(app)
 * app.get('/books/', { preHandler: policies(api, { openApi: { list: { item: book } } }) }, …)
 * await app.ready()
 * const doc = openApiDocument(openApiRoutes(app), { info: { title: 'Books', version: '1' } })
 */
export function openApiRoutes(app: FastifyInstance): DescribedRoute[] {
  let routes = registered.get(app)
  if (routes === undefined) {
    // Routes already in the router were added before our hook: the document would silently miss them.
    if (HAS_ROUTE.test(app.printRoutes())) {
      throw new ConfigurationError(
        'ERR_INVALID_SETTING',
        "openApiRoutes(app) must first be called before the app's routes are registered (Fastify tells a hook only of the routes added after it): call it once right after creating the app, as you register @fastify/swagger",
      )
    }
    const list: Registered[] = []
    try {
      app.addHook('onRoute', (options) => {
        const seen = handlersOf(options)
        list.push({ options, handlers: seen })
        if ((options.config as { readonly swaggerTransform?: unknown } | undefined)?.swaggerTransform !== undefined || !describedOf(options).some((r) => !('view' in r))) return
        // Read by @fastify/swagger when the app registers it (document only; Fastify validates with `schema` as before).
        options.config = { ...options.config, swaggerTransform: policySwaggerTransform(options, seen) } as NonNullable<RouteOptions['config']>
      })
    } catch (error) {
      throw new ConfigurationError('ERR_INVALID_SETTING', `openApiRoutes(app) must first be called before the app's routes are registered (${error instanceof Error ? error.message : String(error)})`)
    }
    registered.set(app, list)
    routes = list
  }
  return routes.flatMap((r) => describedOf(r.options, r.handlers))
}


