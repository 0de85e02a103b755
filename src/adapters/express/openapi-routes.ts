// The routes of an Express app that OpenAPI documents describe, read from Express's router
// layers (4 and 5).
import { ConfigurationError, type DescribedRoute } from '../../index.js'
import { describedRoutes } from '../../http/index.js'
import type { RouteTarget } from './views.js'

/** One route as `describedRoutes` reads it. */
type FrameworkRoute = Parameters<typeof describedRoutes>[0] extends Iterable<infer R> ? R : never

/** The parts of Express's (4 and 5) router layers `openApiRoutes` reads. */
interface RouterLayer {
  readonly route?: { readonly path?: unknown; readonly stack?: readonly { readonly method?: string; readonly handle?: unknown }[] }
  readonly handle?: { readonly stack?: unknown }
  /** Express 5 (router 2.3 and later): the path the layer was declared with. */
  readonly rawPath?: unknown
  /** Express 4: the layer's regular expression (`^\/api\/?(?=\/|$)` for `use('/api', …)`). */
  readonly regexp?: RegExp & { readonly fast_slash?: boolean }
  /** Express 5: `use('/', …)` or `use(router)`. */
  readonly slash?: boolean
}

/** `prefix` + `path`, one `/` between them. */
function joinPath(prefix: string, path: string): string {
  return prefix === '' ? path : `${prefix.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}`
}

/** The path a router layer is mounted at (`app.use('/api', router)`), or `null` when only its regular expression says. */
function mountPath(layer: RouterLayer): string | null {
  if (layer.slash === true || layer.regexp?.fast_slash === true) return ''
  if (typeof layer.rawPath === 'string') return layer.rawPath === '/' ? '' : layer.rawPath
  const source = layer.regexp?.source
  // Express 4 writes `use('/api', …)` as `^\/api\/?(?=\/|$)`: a literal path, escaped.
  const end = '\\/?(?=\\/|$)'
  if (source === undefined || !source.startsWith('^') || !source.endsWith(end)) return null
  const literal = source.slice(1, -end.length)
  let path = ''
  for (let i = 0; i < literal.length; i++) {
    const c = literal[i] as string
    if (c === '\\') path += literal[++i] ?? ''
    else if ('()[]{}*+?|^$.'.includes(c)) return null
    else path += c
  }
  return path
}

/** The layers of an Express 4 or 5 app, or of a router. */
function stackOf(target: object): readonly RouterLayer[] {
  const t = target as { readonly stack?: unknown; readonly _router?: { readonly stack?: unknown } }
  if (Array.isArray(t.stack)) return t.stack as RouterLayer[]
  // Express 4 keeps the app's router in `_router`; Express 5's `app.router` getter creates it (Express 4's throws).
  if (Array.isArray(t._router?.stack)) return t._router.stack as RouterLayer[]
  if ('_router' in t) return []
  try {
    const router = (target as { readonly router?: { readonly stack?: unknown } }).router
    return Array.isArray(router?.stack) ? (router.stack as RouterLayer[]) : []
  } catch {
    return []
  }
}

/** Every route of `target` and of the routers mounted in it, as `describedRoutes` reads them. */
function frameworkRoutes(target: object, prefix: string): FrameworkRoute[] {
  const out: FrameworkRoute[] = []
  for (const layer of stackOf(target)) {
    const route = layer.route
    if (route !== undefined) {
      const paths = Array.isArray(route.path) ? (route.path as unknown[]) : [route.path]
      for (const path of paths) {
        if (typeof path !== 'string') continue
        for (const sub of route.stack ?? []) out.push({ method: sub.method ?? 'ALL', path: joinPath(prefix, path), handlers: [sub.handle] })
      }
      continue
    }
    const router = layer.handle
    if (router === undefined || !Array.isArray(router.stack)) continue
    const mount = mountPath(layer)
    const inner = frameworkRoutes(router, joinPath(prefix, mount ?? ''))
    if (mount === null && describedRoutes(inner).length > 0) {
      throw new ConfigurationError(
        'ERR_INVALID_ROUTE',
        'openApiRoutes: a router with described routes is mounted at a pattern whose path Express does not keep (or on Express 5 with router before 2.3): call openApiRoutes(router, { prefix }) for it',
      )
    }
    out.push(...inner)
  }
  return out
}

/** Options of `openApiRoutes`. */
export interface OpenApiRoutesOptions {
  /** The path `target` is mounted at (`'/api'` for a router used as `app.use('/api', router)`). @default '' */
  readonly prefix?: string
}

/**
 * The routes of an Express app or router that OpenAPI documents describe (`openApiDocument`,
 * `openApiView`'s `routes`): each view `mountRoutes` mounted, and each route of your own with
 * a `policies()` middleware (`router.get('/books/:id', policies(api, { openApi }), …)`), for
 * its method, with the paths of the routers it is mounted in (`app.use('/api', router)`).
 * A `policies()` on every method (`router.use`, `router.all`) describes no operation. Call
 * it once the routes are registered: in `openApiView({ routes: () => openApiRoutes(app) })`,
 * on the first request.
 *
 * @example
 * const doc = openApiDocument(openApiRoutes(app), { info: { title: 'Books', version: '1' } })
 */
export function openApiRoutes(target: RouteTarget, options: OpenApiRoutesOptions = {}): DescribedRoute[] {
  return describedRoutes(frameworkRoutes(target, options.prefix ?? ''))
}
