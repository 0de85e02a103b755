// DRF's 405 for the app's own routes on Hono: Hono answers a method a path's routes do not take
// with its not-found handler; where a route of that path is guarded by `policies()`, the app
// gets DRF's 405 with `Allow` instead, from the app's own list of routes (`app.routes`).
import type { Context, Hono, NotFoundHandler } from 'hono'
import { answerOtherMethod, OwnRouteTable } from '../../http/index.js'
import { notFound } from './errors.js'
import { checked, webResponse } from './reply.js'
import { toApiRequest } from './request.js'

/** What `OwnRouteTable` needs of a Hono app. */
interface RoutedApp {
  readonly routes: readonly { readonly path: string; readonly method: string; readonly handler: unknown }[]
}

/**
 * A not-found handler for `app`: a method the routes of the path do not take, where one of
 * them is guarded by `policies()`, is DRF's 405 with `Allow` (every method the app's routes
 * take there; after that route's policies, as DRF), anything else DRF's 404. Routes for every
 * method (`app.use`, `app.all`) are middleware here: they had their chance.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Hono app, whatever its env and schema
export function notFoundOrOtherMethod(app: Hono<any, any, any>): NotFoundHandler {
  const routed = app as unknown as RoutedApp
  let table = new OwnRouteTable()
  let seen = 0
  return async (c: Context) => {
    // Routes registered since the last look (Hono lets an app add routes at any time).
    if (routed.routes.length !== seen) {
      table = new OwnRouteTable()
      for (const { path, method, handler } of routed.routes) if (method !== 'ALL') table.add({ path, methods: [method], handlers: () => [handler] })
      seen = routed.routes.length
    }
    const found = table.lookup(c.req.path)
    if (!OwnRouteTable.isOtherMethod(found, c.req.method)) return notFound()
    const settings = found.policies.settings
    return webResponse(checked(await answerOtherMethod(found.policies, toApiRequest(c), found.methods), settings, c), settings, c)
  }
}
