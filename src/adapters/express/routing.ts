// DRF's URL conf rules on an Express app: case-sensitive, strict (trailing slash significant),
// matched on the percent-decoded path.
import type express from 'express'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { ConfigurationError } from '../../index.js'

/** The Express app `drfRouting` configures: its settings and its router (Express 4 keeps it in `_router`). */
interface RoutedApp {
  set(name: string, value: unknown): unknown
  use(handler: RequestHandler): unknown
  readonly lazyrouter?: () => void
  readonly _router?: { readonly strict?: unknown; readonly caseSensitive?: unknown }
  readonly router?: { readonly strict?: unknown; readonly caseSensitive?: unknown }
}

/**
 * Applies DRF's routing rules to an Express app: routes match case-sensitively (`/API/BOOKS/`
 * is not `/api/books/`) and with the trailing slash significant (`strict routing`), and on the
 * percent-decoded path as Django routes it (`/api/who%61mi/` and `/api%2Fwhoami/` are
 * `/api/whoami/`; a malformed escape matches nothing). Links keep the path the client sent
 * (`req.originalUrl`). Call it on a new app, before any route or middleware (Express fixes its
 * router's options when the first one is added; a later call throws). Finish the app with
 * `app.use(notFound)` and `app.use(errorHandler(api))` after your routes.
 *
 * @example
 * const app = drfRouting(express())
 * mountRoutes(app, [route('/api/books/:id/', book)])
 * app.use(notFound)
 * app.use(errorHandler(api))
 */
export function drfRouting<A extends express.Application>(app: A): A {
  const routed = app as unknown as RoutedApp
  routed.set('strict routing', true)
  routed.set('case sensitive routing', true)
  // Express 4 makes its router on demand (`lazyrouter`); Express 5's `app.router` getter does.
  routed.lazyrouter?.()
  const router = typeof routed.lazyrouter === 'function' ? routed._router : routed.router
  if (router?.strict !== true || router.caseSensitive !== true) {
    throw new ConfigurationError('ERR_INVALID_ROUTE', 'drfRouting(app) must be called before any route or middleware is added to the app')
  }
  routed.use(decodedPaths)
  return app
}

/**
 * Puts the percent-decoded path, re-encoded segment by segment, where Express's router looks:
 * Express routes on the raw path, Django on the decoded one (`%2F` included).
 */
function decodedPaths(req: Request, _res: Response, next: NextFunction): void {
  const url = req.url
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  if (path.includes('%')) {
    try {
      req.url = decodeURIComponent(path).split('/').map(encodeURIComponent).join('/') + (query === -1 ? '' : url.slice(query))
    } catch {
      // A malformed escape matches no route: the app's 404 answers it.
    }
  }
  next()
}
