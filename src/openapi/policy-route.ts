import { ConfigurationError } from '../core/errors.js'
import type { Policies } from '../core/policies.js'
import type { OperationDescription } from '../core/openapi-types.js'
import { validateRoutePath, type Route } from '../core/route.js'
import { HANDLER_METHODS, type ApiView, type HandlerMethod } from '../core/view.js'

/** The `openApi` option of every adapter's `policies(api, { … })`. */
export interface OpenApiRouteOptions {
  /**
   * What OpenAPI documents say about the route beyond its policies: its `response` or paginated
   * `list` (with `item`), `requestBody`, success `status`, `summary`, `parameters`, `errors`
   * (the shape `describeHandler` takes). The route's security, its 401/403/429 and its
   * paginator come from its policies. @default `{}` (any JSON answer, 200)
   */
  readonly openApi?: OperationDescription
}

/**
 * One operation of the app's own route guarded by `policies()`, as OpenAPI documents describe
 * it: `openApiRoutes(app)` finds them on Fastify, Express and Hono; on node:http, declare them
 * with `policyRoute`.
 */
export interface PolicyRoute {
  readonly method: HandlerMethod
  /** The route's path, `:name` parameters as routes declare them (`/books/:id/`). */
  readonly path: string
  /** The route's policies: its schemes, permissions, throttles and paginator. */
  readonly policies: Policies
  /** What the route's `policies(api, { name, openApi })` said about it. */
  readonly openApi: OperationDescription
  /** The `name` given to `policies(api, { name })`: the operation's summary and id. */
  readonly name?: string
}

/** What an OpenAPI document describes: DRF-style views (`route(path, view)`) and own routes guarded by `policies()`. */
export type DescribedRoute = Route | PolicyRoute

/** What a function the adapters return or mount stands for, for `openApiRoutes`. */
type Described =
  | { readonly kind: 'view'; readonly view: ApiView }
  | { readonly kind: 'policies'; readonly policies: Policies; readonly openApi: OperationDescription; readonly name: string | undefined }

/** Functions the adapters made (a `policies()` middleware, a view's mounted handler) → what they stand for. */
const described = new WeakMap<object, Described>()

/** Marks `fn` as the `policies()` middleware of `routePolicies`, for `openApiRoutes` to find on a route. Returns `fn`. */
export function markPolicies<F extends object>(fn: F, routePolicies: Policies, options: OpenApiRouteOptions & { readonly name?: string | undefined }): F {
  described.set(fn, { kind: 'policies', policies: routePolicies, openApi: options.openApi ?? {}, name: options.name })
  return fn
}

/** The policies `fn` runs when it is a `policies()` middleware (or node:http's guarded handler), else `undefined`. */
export function policiesOf(fn: unknown): Policies | undefined {
  if ((typeof fn !== 'function' && typeof fn !== 'object') || fn === null) return undefined
  const mark = described.get(fn)
  return mark?.kind === 'policies' ? mark.policies : undefined
}

/** Marks `fn` as the handler answering with `view` (what `mountRoutes` mounts). Returns `fn`. */
export function markView<F extends object>(fn: F, view: ApiView): F {
  described.set(fn, { kind: 'view', view })
  return fn
}

/** Marks `to` as standing for what `from` stands for (node:http's guarded handler: the middleware's description). */
export function copyMark<F extends object>(from: object, to: F): F {
  const mark = described.get(from)
  if (mark !== undefined) described.set(to, mark)
  return to
}

/**
 * `:name{regex}` (Hono), `:name(regex)` (Fastify) → `:name`: parameters as `route()` spells
 * them. Linear: one pass, skipping a bracketed constraint.
 */
export function plainRoutePath(path: string): string {
  let out = ''
  let inParam = false
  for (let i = 0; i < path.length; i++) {
    const c = path[i] as string
    const close = c === '{' ? '}' : c === '(' ? ')' : null
    if (close !== null && inParam) {
      // Skip the constraint up to its matching bracket (nested ones counted, escapes skipped).
      let depth = 1
      while (depth > 0 && ++i < path.length) {
        if (path[i] === '\\') i++
        else if (path[i] === c) depth++
        else if (path[i] === close) depth--
      }
      inParam = false
      continue
    }
    if (c === ':') inParam = true
    else if (c === '/') inParam = false
    out += c
  }
  return out
}

/** One route as a framework lists it: its method (`ALL` for every method), path, and handlers in order. */
export interface FrameworkRoute {
  readonly method: string | undefined
  readonly path: string
  readonly handlers: readonly unknown[]
}

/**
 * The routes gatehouse describes among a framework's routes: each view `mountRoutes`
 * mounted (once per path), and each operation whose handlers include a `policies()`
 * middleware, for the method it was registered with (a middleware on every method, `use` or
 * `all`, describes none: OpenAPI has no operation for it).
 */
export function describedRoutes(routes: Iterable<FrameworkRoute>): DescribedRoute[] {
  const out: DescribedRoute[] = []
  const views = new Map<string, Set<ApiView>>()
  const operations = new Set<string>()
  for (const { method, path, handlers } of routes) {
    const plain = plainRoutePath(path)
    for (const handler of handlers) {
      if ((typeof handler !== 'function' && typeof handler !== 'object') || handler === null) continue
      const mark = described.get(handler)
      if (mark === undefined) continue
      if (mark.kind === 'view') {
        // A view is mounted for every method: one route per path (Fastify lists each method).
        const seen = views.get(plain) ?? new Set<ApiView>()
        views.set(plain, seen)
        if (!seen.has(mark.view)) out.push({ path: plain, view: mark.view })
        seen.add(mark.view)
        continue
      }
      const upper = method?.toUpperCase()
      if (upper === undefined || !HANDLER_METHODS.includes(upper as HandlerMethod)) continue
      const key = `${upper} ${plain}`
      if (operations.has(key)) continue
      operations.add(key)
      out.push({ method: upper as HandlerMethod, path: plain, policies: mark.policies, openApi: mark.openApi, ...(mark.name === undefined ? {} : { name: mark.name }) })
    }
  }
  return out
}

/**
 * Declares the app's own route guarded by `policy` (what `policies(api, { … })` returned, or
 * on node:http the handler it wrapped) as answering `method` at `path`, for
 * `openApiDocument`: how an app without a router (node:http) lists its own routes, and a way
 * to list a route `openApiRoutes` cannot find. Throws when `policy` did not come from `policies()`.
 *
 * @example
 * const getBook = policies(api, { openApi: { response: book } })(async (req, res) => { … })
 * const doc = openApiDocument([...views, policyRoute('GET', '/books/:id/', getBook)], { info })
 */
export function policyRoute(method: HandlerMethod, path: string, policy: (...args: never[]) => unknown): PolicyRoute {
  const mark = described.get(policy)
  if (mark === undefined || mark.kind !== 'policies') throw new ConfigurationError('ERR_INVALID_SETTING', `policyRoute('${method}', '${path}'): the handler did not come from policies()`)
  validateRoutePath(plainRoutePath(path))
  return { method, path: plainRoutePath(path), policies: mark.policies, openApi: mark.openApi, ...(mark.name === undefined ? {} : { name: mark.name }) }
}
