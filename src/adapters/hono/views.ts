// DRF-style views on Hono: a handler per view, and `mountRoutes` to mount them for every method.
import type { Context, Hono, Next } from 'hono'
import type { ApiResponse, ApiView, Route } from '../../index.js'
import { INVALID_HOST_RESPONSE, isPromise, markRoute, routeParamsMatch } from '../../http/index.js'
import { checked, webResponse } from './reply.js'
import { toApiRequest, type HonoOptions } from './request.js'

/** Options of `mountRoutes`. */
export interface MountOptions extends HonoOptions {
  /** A path the routes are mounted under (`'/v1'`: `route('/books/', …)` answers `/v1/books/`). @default none */
  readonly prefix?: string
}

/**
 * Mounts each route's `ApiView` for every method (`app.all`), so the view answers DRF's
 * 405 itself; the route's `:name` parameters reach `ApiRequest.params`. `options.prefix`
 * mounts them under a path.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Hono app, whatever its env and schema
export function mountRoutes<A extends Hono<any, any, any>>(app: A, routes: readonly Route[], options: MountOptions = {}): A {
  const prefix = (options.prefix ?? '').replace(/\/$/, '')
  for (const r of routes) {
    const handler = viewHandler(r.view, options)
    // A parameter the route's converter refuses (`{ id: 'int' }` and `/abc/`): no route, as in Django.
    const converted = async (c: Context, next: Next): Promise<Response | void> => (routeParamsMatch(r, c.req.param() as Record<string, string>) ? handler(c) : next())
    app.all(`${prefix}${r.path}`, markRoute(r.params === undefined ? handler : converted, r.view))
  }
  return app
}

/** A Hono handler answering with `view` (which never throws); a malformed Host is a 400. */
export function viewHandler(view: ApiView, options: HonoOptions = {}): (c: Context) => Response | Promise<Response> {
  const answer = (c: Context, response: ApiResponse): Response => webResponse(checked(response, view.settings, c), view.settings, c)
  return (c) => {
    const request = toApiRequest(c, options)
    if (request === null) return answer(c, INVALID_HOST_RESPONSE)
    const response = view.handle(request) as ApiResponse | Promise<ApiResponse>
    // A view that answered synchronously is answered now, without a promise of ours (Hono takes either).
    return isPromise(response) ? response.then((r) => answer(c, r)) : answer(c, response)
  }
}
