// DRF-style views on Express: a handler per view, and `mountRoutes` to mount them on a router
// of their own that matches as DRF's URL conf does.
import express from 'express'
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express'
import type { ApiResponse, ApiView, Route } from '../../index.js'
import { INVALID_HOST_RESPONSE, isPromise, markRoute, routeParamsMatch, writeNodeResponse } from '../../http/index.js'
import { sendApiResponse } from './reply.js'
import { toApiRequest, type ExpressOptions } from './request.js'

/** The part of an Express app or router `mountRoutes` uses. */
export type RouteTarget = Pick<Router, 'use'>

/** Options of `mountRoutes`. */
export interface MountOptions extends ExpressOptions {
  /**
   * A path the routes are mounted under (`'/v1'`: `route('/books/', …)` answers `/v1/books/`),
   * as `target.use(prefix, …)` would mount them. @default none
   */
  readonly prefix?: string
}

/**
 * Mounts DRF-style views: each route answers every method with its view (which answers
 * 405 itself), with Express's `:name` parameters passed into `ApiRequest.params`. The routes
 * sit on a router of their own that matches as DRF's URL conf does, whatever `target`'s
 * options: case-sensitively (`/API/WHOAMI/` is not `/api/whoami/`) and with the trailing
 * slash significant. Requests no route matches go on to `target`'s next handler. `options.prefix`
 * mounts them under a path (`{ prefix: '/v1' }`).
 */
export function mountRoutes<T extends RouteTarget>(target: T, routes: readonly Route[], options: MountOptions = {}): T {
  const drfRoutes = express.Router({ caseSensitive: true, strict: true })
  for (const r of routes) {
    const handler = viewHandler(r.view, options)
    // A parameter the route's converter refuses (`{ id: 'int' }` and `/abc/`): no route, as in Django.
    drfRoutes.all(r.path, r.params === undefined ? handler : (req, res, next) => (routeParamsMatch(r, req.params as Record<string, string>) ? handler(req, res, next) : next()))
  }
  const prefix = (options.prefix ?? '').replace(/\/$/, '')
  if (prefix === '') target.use(drfRoutes)
  else target.use(prefix, drfRoutes)
  return target
}

/** A request handler answering with `view` (which never throws); a malformed host is a 400. */
export function viewHandler(view: ApiView, options: ExpressOptions = {}): RequestHandler {
  return markRoute((req: Request, res: Response, next: NextFunction): void => {
    const request = toApiRequest(req, options)
    if (request === null) return sendApiResponse(res, INVALID_HOST_RESPONSE)
    const write = (response: ApiResponse): void => {
      // A body left unread past the limit is not drained: the connection closes instead.
      if (response.status === 413 && !req.complete) res.setHeader('Connection', 'close')
      // Never throws: a header Node refuses is a 500 logged through the view's `logError`.
      writeNodeResponse(res, response, view.settings)
    }
    let answer: ApiResponse | Promise<ApiResponse>
    try {
      answer = view.handle(request) as ApiResponse | Promise<ApiResponse>
    } catch (error) {
      return next(error)
    }
    // A view that answered synchronously is written now, without a promise of ours.
    if (isPromise(answer)) answer.then(write).catch(next)
    else write(answer)
  }, view)
}
