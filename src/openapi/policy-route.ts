import { ConfigurationError } from '../core/errors.js'
import type { Policies } from '../core/policies.js'
import type { Paginator } from '../core/paginator.js'
import type { OpenApiParameter, OperationDescription } from '../core/openapi-types.js'
import { validateRoutePath, type Route } from '../core/route.js'
import { ApiView, HANDLER_METHODS, type HandlerMethod } from '../core/view.js'

/**
 * The OpenAPI options of every adapter's `policies(api, { … })`: what the document says of the
 * route beyond its policies. Left out of the route's `Policies` (`resolvePolicies`).
 */
export interface OpenApiRouteOptions {
  /**
   * What OpenAPI documents say about the route beyond its policies: its `response` or paginated
   * `list` (with `item`), `requestBody`, success `status`, `summary`, `parameters`, `errors`
   * (the shape `describeHandler` takes). The route's security, its 401/403/429 and its
   * paginator come from its policies. @default `{}` (any JSON answer, 200)
   */
  readonly openApi?: OperationDescription
  /**
   * The ordering filter the route's handler applies (`paginatedList(…, { ordering })`): its
   * `?ordering=` parameter is described on the route's GET operation, as `listHandler`'s is.
   * @default none
   */
  readonly ordering?: { openApiParameter(): OpenApiParameter }
  /**
   * The filter set the route's handler applies (`paginatedList(…, { filters })`): each of its
   * parameters, with its type, is described on the route's GET operation, as `listHandler`'s
   * are. @default none
   */
  readonly filters?: { openApiParameters(): OpenApiParameter[] }
  /** The search the route's handler applies (`paginatedList(…, { search })`): its `?search=` is described as `filters`' are. @default none */
  readonly search?: { openApiParameter(): OpenApiParameter }
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
  | {
      readonly kind: 'policies'
      readonly policies: Policies
      readonly openApi: OperationDescription
      readonly name: string | undefined
      /** Query parameters of the route's list reads (GET): its own paginator's, filters', search's and ordering filter's. */
      readonly listParameters: readonly OpenApiParameter[]
      /** Whether its GET reads filters, which answer 400 for a value that does not read. */
      readonly filtered: boolean
    }

/** Functions the adapters made (a `policies()` middleware, a view's mounted handler) → what they stand for. */
const described = new WeakMap<object, Described>()

/**
 * What the route's own paginator, filters, search and ordering filter add to its GET operation
 * (in DRF's order: the paginator's, then each filter backend's), unless `openApi` already says.
 */
function listParametersOf(options: RouteMarkOptions, openApi: OperationDescription): OpenApiParameter[] {
  const out: OpenApiParameter[] = []
  // With `list`, the document already describes the paginator's parameters (the route's `pagination`).
  const paginator = options.pagination
  if (openApi.list === undefined && paginator !== undefined && paginator !== null) out.push(...(paginator.openApiParameters?.() ?? []))
  if (options.filters !== undefined) out.push(...options.filters.openApiParameters())
  if (options.search !== undefined) out.push(options.search.openApiParameter())
  if (options.ordering !== undefined) out.push(options.ordering.openApiParameter())
  const own = openApi.parameters ?? []
  return out.filter((p) => !own.some((o) => o['name'] === p['name'] && o['in'] === p['in']))
}

/** What `markRoute` reads of a `policies()` call's options. */
type RouteMarkOptions = OpenApiRouteOptions & { readonly name?: string | undefined; readonly pagination?: Paginator | null | undefined }

/**
 * Marks `fn`, a function your adapter hands its framework, as standing for a route that OpenAPI
 * documents describe, for `describedRoutes` (and so `openApiRoutes`) to find it among the
 * framework's routes: a view's mounted handler (`markRoute(handler, view)`), or a `policies()`
 * middleware (`markRoute(middleware, routePolicies, options)`, `options` being what the app gave
 * `policies()`: its `openApi`, `name`, and the paginator, filters, search and ordering filter
 * whose query parameters the route's GET operation lists). Mark every function that stands for the same
 * route (a wrapper and what it wraps) the same way. Returns `fn`.
 *
 * @example
 * return markRoute(middleware, routePolicies, options)
 */
export function markRoute<F extends object>(fn: F, view: ApiView): F
export function markRoute<F extends object>(fn: F, routePolicies: Policies, options?: RouteMarkOptions): F
export function markRoute<F extends object>(fn: F, what: ApiView | Policies, options: RouteMarkOptions = {}): F {
  if (what instanceof ApiView) {
    described.set(fn, { kind: 'view', view: what })
    return fn
  }
  const openApi = options.openApi ?? {}
  described.set(fn, { kind: 'policies', policies: what, openApi, name: options.name, listParameters: listParametersOf(options, openApi), filtered: options.filters !== undefined })
  return fn
}

/** The policies `fn` runs when it is a `policies()` middleware (or node:http's guarded handler), else `undefined`. */
export function policiesOf(fn: unknown): Policies | undefined {
  if ((typeof fn !== 'function' && typeof fn !== 'object') || fn === null) return undefined
  const mark = described.get(fn)
  return mark?.kind === 'policies' ? mark.policies : undefined
}

/** A policy route's operation for `method`: its own list parameters on GET, and its filters' 400. */
function policyRouteOf(method: HandlerMethod, path: string, mark: Extract<Described, { kind: 'policies' }>): PolicyRoute {
  let openApi = mark.openApi
  if (method === 'GET' && mark.listParameters.length > 0) openApi = { ...openApi, parameters: [...(openApi.parameters ?? []), ...mark.listParameters] }
  if (method === 'GET' && mark.filtered && !(openApi.errors ?? []).includes(400)) openApi = { ...openApi, errors: [...(openApi.errors ?? []), 400] }
  return { method, path, policies: mark.policies, openApi, ...(mark.name === undefined ? {} : { name: mark.name }) }
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
  /** The method it was registered for; `ALL` (or `undefined`) for every method. */
  readonly method: string | undefined
  /** Its path as the framework writes it (`:id`, `:id{[0-9]+}`, `:id(\\d+)`). */
  readonly path: string
  /** Its handlers and middleware, in any order: those `markRoute` marked are read. */
  readonly handlers: readonly unknown[]
}

/**
 * The routes OpenAPI documents describe among a framework's routes, what an adapter's
 * `openApiRoutes(app)` returns: read the framework's route table, and hand each route's
 * method, path and handlers here. A route whose handlers include one `markRoute` marked with a
 * view is that view (once per path); one marked with policies is an operation for the method it
 * was registered with (a middleware on every method, `use` or `all`, describes none: OpenAPI has
 * no operation for it). Paths are written as `route()` writes them (`:id{[0-9]+}` is `:id`).
 *
 * @example
 * export const openApiRoutes = (app: App) => describedRoutes(app.routes.map((r) => ({ method: r.method, path: r.path, handlers: [r.handler] })))
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
      out.push(policyRouteOf(upper as HandlerMethod, plain, mark))
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
  return policyRouteOf(method, plainRoutePath(path), mark)
}
