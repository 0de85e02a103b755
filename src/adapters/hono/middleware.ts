// Middleware style on Hono: `policies()` runs a route's policies before the app's own handler,
// and `requestContext(c)` reads what they found.
import type { Context, MiddlewareHandler } from 'hono'
import { Policies, type Api, type PolicyOptions, type RequestContext } from '../../index.js'
import { errorResponse, markRoute, resolvePolicies, type OpenApiRouteOptions } from '../../http/index.js'
import { checked, webResponse } from './reply.js'
import { keptContext, toApiRequest, type GatehouseEnv, type HonoOptions } from './request.js'

/** Options of `policies(api, options)`: the route's policies, how its body is read, what OpenAPI says of it. */
export interface PoliciesOptions extends PolicyOptions, HonoOptions, OpenApiRouteOptions {}

/**
 * The `RequestContext` that `paginatedList` and friends take, for a request `policies()` let
 * through (JSON format, the route's parameters). Throws when `policies()` did not run on it.
 */
export function requestContext(c: Context): RequestContext {
  const context = keptContext(c)
  if (context === undefined) throw new Error('gatehouse: requestContext() needs policies() to have run on this request')
  return context
}

/** Replaces the context's response without Hono merging the old one's headers into it. */
function replaceResponse(c: Context, response: Response): void {
  c.res = undefined
  c.res = response
}

const ADAPTER_KEYS: readonly (keyof PoliciesOptions)[] = ['bodyLimit', 'getConnInfo']

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
  return markRoute(middleware, routePolicies, { ...options, name: source instanceof Policies ? undefined : options.name })
}
