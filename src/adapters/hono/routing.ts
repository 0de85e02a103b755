// DRF's URL conf rules on a Hono app: the path as the client sent it, percent-decoded once,
// the trailing slash significant, and DRF's 404.
import type { Hono } from 'hono'
import { routingPath, targetPath } from '../../http/index.js'
import { notFoundOrOtherMethod } from './own-route-methods.js'

/**
 * Hono's `getPath` option that routes as Django does: the path the client sent (on
 * `@hono/node-server`, the raw request target, before the WHATWG URL resolves `/./` and
 * `/../`), percent-decoded once so `%2F` is a `/`. Needs `strict: true` (Hono ignores
 * `getPath` otherwise), which also keeps the trailing slash significant.
 *
 * @example
 * const app = new Hono({ strict: true, getPath: djangoGetPath })
 */
export function djangoGetPath(request: Request, options?: { env?: unknown }): string {
  const incoming = (options?.env as { incoming?: { url?: unknown } } | undefined)?.incoming?.url
  const raw = typeof incoming === 'string' && incoming.startsWith('/') ? targetPath(incoming) : rawPathOf(request.url)
  return routingPath(raw)
}

/** The path of an absolute URL string as it is written (`http://h/a/b?q` → `/a/b`). */
function rawPathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf(':') + 3)
  return start === -1 ? '/' : targetPath(url.slice(start))
}

/**
 * Applies DRF's routing rules to a Hono app: the path routed is the one the client sent,
 * percent-decoded as Django decodes it (`djangoGetPath`: `/api%2Fwhoami/` is `/api/whoami/`,
 * `/./` kept as sent), with the trailing slash significant (what Hono's `strict: true` means),
 * a path no route matches is DRF's `404 {"detail": "Not found."}` (`notFound`), and a method
 * the routes of a path do not take, where one of them is guarded by `policies()`, is DRF's
 * `405 {"detail": "Method \"PATCH\" not allowed."}` with `Allow` (after that route's policies). Hono
 * already routes case-sensitively. Call it on the app that serves (not on a sub-app mounted
 * with `app.route()`, whose path and 404 are the parent's). On @hono/node-server, also wrap
 * the listener: `withoutBodilessContentType(getRequestListener(app.fetch, { errorHandler: requestErrorHandler }))`.
 *
 * @example
 * const app = drfRouting(new Hono())
 * mountRoutes(app, [route('/api/books/:id/', book)])
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Hono app, whatever its env and schema
export function drfRouting<A extends Hono<any, any, any>>(app: A): A {
  // What `new Hono({ strict: true, getPath })` does (Hono's constructor assigns its options to
  // the instance, and reads `getPath` on every request); `getPath` is typed read-only.
  Object.assign(app, { getPath: djangoGetPath })
  app.notFound(notFoundOrOtherMethod(app))
  return app
}
