// The routes of a Hono app that OpenAPI documents describe, read from `app.routes`.
import type { Hono } from 'hono'
import type { DescribedRoute } from '../../index.js'
import { describedRoutes } from '../../http/index.js'

/** What Hono keeps of a handler it wrapped when `app.route()` mounted an app with its own `onError`. */
const COMPOSED_HANDLER = '__COMPOSED_HANDLER'

/**
 * The routes of `app` that OpenAPI documents describe (`openApiDocument`, `openApiView`'s
 * `routes`): each view `mountRoutes` mounted, and each route of your own with a `policies()`
 * middleware, for its method and path as `app.routes` lists them (sub-apps mounted with
 * `app.route()` included, `:id{[0-9]+}` written `:id`). A `policies()` on every method
 * (`app.use`, `app.all`) describes no operation. Call it once the routes are registered: in
 * `openApiView({ routes: () => openApiRoutes(app) })`, on the first request.
 *
 * @example
 * app.get('/books/', policies(api, { openApi: { list: { item: book } } }), (c) => …)
 * const doc = openApiDocument(openApiRoutes(app), { info: { title: 'Books', version: '1' } })
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Hono app, whatever its env and schema
export function openApiRoutes(app: Hono<any, any, any>): DescribedRoute[] {
  return describedRoutes(
    app.routes.map((r) => ({ method: r.method, path: r.path, handlers: [r.handler, (r.handler as unknown as Record<string, unknown>)[COMPOSED_HANDLER]] })),
  )
}
