import { unquotePath } from './request/url-decoding.js'
import { ConfigurationError } from './errors.js'
import type { ApiView } from './view.js'

/**
 * A view at a path, declared once and mounted on any framework (`mountRoutes` of the
 * Fastify, Express and Hono adapters, `router` of the node:http one). A segment `:name`
 * is a path parameter (`/books/:id/`), the syntax the three frameworks share; the
 * trailing slash is significant, as in DRF's URL conf.
 */
export interface Route {
  readonly path: string
  readonly view: ApiView
  /**
   * Which values each path parameter matches (`route(path, view, { params })`); a request
   * whose parameter another value holds matches no route, as a Django path converter makes it.
   */
  readonly params?: Readonly<Record<string, PathParam>>
}

/**
 * The values a path parameter matches, as Django's path converters: `'int'` (ASCII digits,
 * `<int:pk>`), `'slug'` (ASCII letters, digits, `-`, `_`), `'uuid'` (lower-case
 * `8-4-4-4-12` hex), `'str'` (any non-empty segment: the default), or a test of your own
 * (given the decoded value; keep it linear in its input).
 */
export type PathParam = 'int' | 'slug' | 'uuid' | 'str' | ((value: string) => boolean)

/** Options of `route`. */
export interface RouteOptions {
  /** What each `:name` parameter matches (`{ id: 'int' }`). @default every parameter `'str'` */
  readonly params?: Readonly<Record<string, PathParam>>
}

const INT = /^[0-9]+$/
const SLUG = /^[-a-zA-Z0-9_]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const CONVERTERS: Readonly<Record<Exclude<PathParam, (value: string) => boolean>, (value: string) => boolean>> = {
  int: (value) => INT.test(value),
  slug: (value) => SLUG.test(value),
  uuid: (value) => UUID.test(value),
  str: (value) => value !== '',
}

const PARAM = /^:[A-Za-z_][A-Za-z0-9_]*$/
// Characters some router gives a meaning to (wildcards, regexes, optional parts).
const SPECIAL = /[*?()+{}[\]\\:]/

/** Checks a route path once at declaration; throws `ConfigurationError` for one a framework would read differently. */
export function validateRoutePath(path: string): void {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new ConfigurationError('ERR_INVALID_ROUTE', `route path "${String(path)}" must start with "/"`)
  }
  const names = new Set<string>()
  for (const segment of path.split('/').slice(1)) {
    if (segment.startsWith(':')) {
      if (!PARAM.test(segment)) throw new ConfigurationError('ERR_INVALID_ROUTE', `route path "${path}": "${segment}" is not a parameter name (:name, letters, digits, _)`)
      if (names.has(segment)) throw new ConfigurationError('ERR_INVALID_ROUTE', `route path "${path}": parameter "${segment}" appears twice`)
      names.add(segment)
    } else if (SPECIAL.test(segment)) {
      throw new ConfigurationError('ERR_INVALID_ROUTE', `route path "${path}": "${segment}" holds a character routers treat specially`)
    }
  }
}

/**
 * Declares a route; the path and its parameter options are checked now, never per request.
 *
 * @example
 * route('/api/articles/:id/', api.view(articleDetail), { params: { id: 'int' } })
 */
export function route(path: string, view: ApiView, options: RouteOptions = {}): Route {
  validateRoutePath(path)
  const { params } = options
  if (params === undefined) return Object.freeze({ path, view })
  const names = new Set(path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1)))
  for (const [name, kind] of Object.entries(params)) {
    if (!names.has(name)) throw new ConfigurationError('ERR_INVALID_ROUTE', `route path "${path}" has no parameter ":${name}"`)
    if (typeof kind !== 'function' && !Object.hasOwn(CONVERTERS, kind)) {
      throw new ConfigurationError('ERR_INVALID_ROUTE', `route path "${path}": parameter ":${name}" must be one of ${Object.keys(CONVERTERS).join(', ')} or a function`)
    }
  }
  return Object.freeze({ path, view, params: Object.freeze({ ...params }) })
}

/**
 * Whether a request's decoded path parameters are ones `r` matches (its `params` converters,
 * `route('/books/:id/', view, { params: { id: 'int' } })`): your adapter calls it once its
 * framework's router matched the path, and treats `false` as no route (the framework's next
 * route, or DRF's 404), as Django does for a converter that refuses.
 */
export function routeParamsMatch(r: RoutePattern, params: Readonly<Record<string, string>>): boolean {
  if (r.params === undefined) return true
  for (const [name, kind] of Object.entries(r.params)) {
    const value = params[name]
    if (value === undefined) return false
    const test = typeof kind === 'function' ? kind : CONVERTERS[kind]
    if (!test(value)) return false
  }
  return true
}

/** Matches a request path against route paths: `null`, or the route and its decoded parameters. */
export type RouteMatcher<R extends RoutePattern = Route> = (pathname: string) => { readonly route: R; readonly params: Readonly<Record<string, string>> } | null

/** What `matchRoutes` reads of a route: its path and its parameters' converters. */
export type RoutePattern = Pick<Route, 'path' | 'params'>

/**
 * A matcher over `routes` for adapters without a router of their own (node:http). The path
 * is percent-decoded once, as Django decodes it before its URL conf sees it (`/api/who%61mi/`
 * is `/api/whoami/`; `%2F` is a `/`, so it never joins two segments; a broken escape stays
 * literal), and parameters are taken from the decoded path. Exact paths are one map
 * look-up; parameter routes are tried in declaration order, one segment comparison each,
 * so matching is linear in the path. A parameter never matches an empty segment.
 */
export function matchRoutes<R extends RoutePattern = Route>(routes: readonly R[]): RouteMatcher<R> {
  const exact = new Map<string, R>()
  const patterns: { route: R; segments: readonly string[] }[] = []
  for (const r of routes) {
    validateRoutePath(r.path)
    const segments = r.path.split('/')
    if (segments.some((s) => s.startsWith(':'))) patterns.push({ route: r, segments })
    else if (!exact.has(r.path)) exact.set(r.path, r)
  }
  const none: Readonly<Record<string, string>> = Object.freeze({})
  return (rawPathname) => {
    const pathname = rawPathname.includes('%') ? unquotePath(rawPathname) : rawPathname
    const found = exact.get(pathname)
    if (found !== undefined) return { route: found, params: none }
    if (patterns.length === 0) return null
    const parts = pathname.split('/')
    for (const { route: candidate, segments } of patterns) {
      if (segments.length !== parts.length) continue
      const params: Record<string, string> = {}
      let ok = true
      for (let i = 0; i < segments.length && ok; i++) {
        const want = segments[i] as string
        const got = parts[i] as string
        if (!want.startsWith(':')) ok = want === got
        else if (got === '') ok = false
        else params[want.slice(1)] = got
      }
      if (ok && routeParamsMatch(candidate, params)) return { route: candidate, params: Object.freeze(params) }
    }
    return null
  }
}
