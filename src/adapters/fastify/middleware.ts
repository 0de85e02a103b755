// Middleware style on Fastify: `policies()` as a `preHandler` hook, `requestContext(request)`,
// and the `gatehouse` plugin that runs each route's declared policies.
import type { FastifyPluginAsync, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { isApiError, Policies, type Api, type PolicyOptions, type RequestContext } from '../../index.js'
import { markRoute, parseBody, resolvePolicies, type OpenApiRouteOptions } from '../../http/index.js'
import { deferBody, hasMalformedBody, judgeDeferredBodyFirst, keepOtherBodies, settleDeferredBody } from './deferred-bodies.js'
import { errorHandler } from './errors.js'
import { addVary, sendWire } from './reply.js'
import { apiRequestOf } from './request.js'
import { policiesSwaggerTransform } from './swagger-transform.js'

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
  const routePolicies = resolvePolicies(source, options, [])
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
  return markRoute(preHandler, routePolicies, { ...options, name: source instanceof Policies ? undefined : options.name })
}

/** Options of `policies(api, options)`: the route's policies (Fastify reads the request itself) and what OpenAPI says of it. */
export interface PoliciesOptions extends PolicyOptions, OpenApiRouteOptions {}

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
