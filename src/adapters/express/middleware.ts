// Middleware style on Express: `policies()` runs a route's policies before the app's own
// handler, and `requestContext(req)` reads what they found.
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { Policies, type Api, type PolicyOptions, type RequestContext } from '../../index.js'
import { isPromise, markRoute, resolvePolicies, writeNodeResponse, type OpenApiRouteOptions, type PoliciesResult } from '../../http/index.js'
import { toApiRequest, type ExpressOptions } from './request.js'
import { guardParserLayout } from './parser-layout.js'

/** Options of `policies(api, options)`: the route's policies, how its body is read, what OpenAPI says of it. */
export interface PoliciesOptions extends PolicyOptions, ExpressOptions, OpenApiRouteOptions {}

const ADAPTER_KEYS: readonly (keyof PoliciesOptions)[] = ['bodyLimit']

/**
 * Middleware that runs a route's policies (allowed host, authentication, permissions,
 * throttles) before the app's own handler, and puts the result on `req.user`, `req.auth`
 * and `req.gatehouse`. A refusal answers in DRF's shape (status, `{"detail"}`,
 * `WWW-Authenticate`, `Retry-After`, `Vary`). Errors the app's handler throws go to Express's
 * error chain: install `errorHandler()` after your routes to answer them in DRF's shape.
 *
 * @example
 * router.get('/books/:id', policies(api, { permissions: [new IsAuthenticated()] }), (req, res) => { … })
 */
export function policies(routePolicies: Policies, options?: ExpressOptions & OpenApiRouteOptions): RequestHandler
export function policies(api: Api, options?: PoliciesOptions): RequestHandler
export function policies(source: Api | Policies, options: PoliciesOptions = {}): RequestHandler {
  const routePolicies = resolvePolicies(source, options, ADAPTER_KEYS)
  const adapterOptions: ExpressOptions = options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }
  const proceed = (result: PoliciesResult, req: Request, res: Response, next: NextFunction): void => {
    if (result.response !== null) return writeNodeResponse(res, result.response, routePolicies.settings)
    const context = result.context
    req.user = context.user
    req.auth = context.auth
    req.gatehouse = context
    for (const header of context.vary) res.vary(header)
    next()
  }
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    guardParserLayout(req, routePolicies.settings)
    const result = routePolicies.run(toApiRequest(req, adapterOptions))
    // Policies that all answered synchronously go on now, without a promise of ours (Express
    // catches what the next handlers throw; a throw here reaches its error chain too).
    if (!isPromise(result)) return proceed(result, req, res, next)
    // Never an unhandled rejection: what is left goes to Express's error chain.
    result.then((settled) => proceed(settled, req, res, next)).catch(next)
  }
  return markRoute(middleware, routePolicies, { ...options, name: source instanceof Policies ? undefined : options.name })
}

/**
 * The handler context of a request `policies()` let through, for the core's helpers that take
 * one (`paginatedList(requestContext(req), …)`): JSON format, the route's params. Throws when
 * `policies()` did not run on the request (a wiring mistake, a 500 from the error handler).
 */
export function requestContext(req: Request): RequestContext {
  const context = req.gatehouse
  if (context === undefined) throw new Error('gatehouse: requestContext() needs policies() to have run on this request')
  return context
}
