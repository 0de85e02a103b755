// Middleware style on node:http: `policies()` wraps the app's own handler so the route's
// policies run first, and `requestContext(req)` reads what they found.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Policies, type Api, type PolicyOptions, type RequestContext } from '../../index.js'
import { answerOtherMethod, errorResponse, isPromise, markRoute, matchRoutes, resolvePolicies, writeNodeResponse, type OpenApiRouteOptions, type PoliciesResult } from '../../http/index.js'
import { lastResort } from './errors.js'
import { answer, DONE, sendApiResponse } from './reply.js'
import { keepContext, keptContext, nodeApiRequest, type NodeHttpOptions } from './request.js'
import { routedPath, routeMiss } from './routing.js'
import type { NodeHandler } from './views.js'
import type { ApiRequest } from '../../index.js'

/** Options of `policies(api, options)`: the route's policies, how its request is read, what OpenAPI says of it. */
export interface PoliciesOptions extends PolicyOptions, NodeHttpOptions, OpenApiRouteOptions {
  /**
   * The route's path pattern (`'/api/books/:id/'`, the syntax of `route()`): its parameters
   * fill `requestContext(req).params`, matched as `router` matches (percent-decoded path,
   * trailing slash significant), and a request whose path it does not match is DRF's 404
   * without running the policies. Without it, pass the parameters your own routing found to
   * the guarded handler: `guarded(req, res, { id })`. @default none
   */
  readonly path?: string
  /**
   * The methods the handler takes (`['GET', 'PUT', 'DELETE']`): a request with another is
   * DRF's `405 {"detail": "Method \"PATCH\" not allowed."}` with `Allow` (these, HEAD with
   * GET, OPTIONS; OPTIONS itself gets DRF's metadata), after the route's policies as in DRF,
   * and the handler does not run. Without it the handler gets every method (node:http has no
   * router to know them). @default every method
   */
  readonly methods?: readonly string[]
}

/** An app's own handler behind `policies()`. */
export type OwnHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>

/** Wraps an app's own handler so it runs only once the route's policies passed: what `policies()` returns. */
export type NodeMiddleware = (handler: OwnHandler) => NodeHandler

const ADAPTER_KEYS: readonly (keyof PoliciesOptions)[] = ['trustProxy', 'bodyLimit', 'params', 'path', 'methods']

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
export function policies(routePolicies: Policies, options?: NodeHttpOptions & OpenApiRouteOptions & Pick<PoliciesOptions, 'path' | 'methods'>): NodeMiddleware
export function policies(api: Api, options?: PoliciesOptions): NodeMiddleware
export function policies(source: Api | Policies, options: PoliciesOptions = {}): NodeMiddleware {
  const routePolicies = resolvePolicies(source, options, ADAPTER_KEYS)
  const adapterOptions: NodeHttpOptions = {
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
  }
  const match = options.path === undefined ? null : matchRoutes([{ path: options.path }])
  const taken = options.methods === undefined ? null : new Set(options.methods.map((m) => m.toUpperCase()))
  if (taken?.has('GET') === true) taken.add('HEAD')
  const allow = options.methods ?? []
  // node:http has no router: `policyRoute(method, path, guarded)` declares the route to OpenAPI
  // documents, given the middleware or the handler it guards (both marked).
  const mark = { ...options, name: source instanceof Policies ? undefined : options.name }
  const middleware: NodeMiddleware = (handler) =>
    markRoute((req: IncomingMessage, res: ServerResponse, given?: Readonly<Record<string, string>>): Promise<void> => {
      let params = given ?? options.params
      if (match !== null) {
        const path = routedPath(req, adapterOptions)
        const found = path === null ? null : match(path)
        if (found === null) return answer(res, routeMiss(req, adapterOptions))
        params ??= found.params
      }
      if (taken !== null && !taken.has(req.method ?? '')) return otherMethod(routePolicies, nodeApiRequest(req, adapterOptions, params), allow, req, res)
      try {
        const result = routePolicies.run(nodeApiRequest(req, adapterOptions, params))
        // Policies that all answered synchronously: the handler runs now, without a promise of ours.
        if (!isPromise(result)) {
          const done = afterPolicies(result, handler, routePolicies, req, res)
          return isPromise(done) ? done : DONE
        }
        return result.then(
          (settled) => afterPolicies(settled, handler, routePolicies, req, res),
          (error: unknown) => lastResort(error, req, res),
        )
      } catch (error) {
        lastResort(error, req, res)
        return DONE
      }
    }, routePolicies, mark)
  return markRoute(middleware, routePolicies, mark)
}

/** A method the handler does not take: the policies, then DRF's 405 (or OPTIONS' metadata), with `Allow`. */
function otherMethod(routePolicies: Policies, request: ApiRequest | null, allow: readonly string[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const answered = answerOtherMethod(routePolicies, request, allow)
    if (!isPromise(answered)) return answer(res, answered)
    return answered.then((response) => answer(res, response), (error: unknown) => lastResort(error, req, res))
  } catch (error) {
    lastResort(error, req, res)
    return DONE
  }
}

/** Answers a refusal, or runs the app's handler on a request the policies let through. */
function afterPolicies(result: PoliciesResult, handler: OwnHandler, routePolicies: Policies, req: IncomingMessage, res: ServerResponse): Promise<void> | void {
  if (result.response !== null) return writeNodeResponse(res, result.response, routePolicies.settings)
  return runOwn(handler, result.context, req, res)
}

/** Runs the app's handler on a request its policies let through; its errors are answered in DRF's shape. */
function runOwn(handler: OwnHandler, context: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> | void {
  keepContext(req, context)
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
    if (isPromise(done)) return done.then(undefined, failed)
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
  const context = keptContext(req)
  if (context === undefined) throw new Error('gatehouse: requestContext() needs policies() to have run on this request')
  return context
}
