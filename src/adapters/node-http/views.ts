// DRF-style views on node:http: a listener per view, and a router that answers each request with
// the view its path matches.
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { ApiResponse, ApiView, Route } from '../../index.js'
import { INVALID_HOST_RESPONSE, isPromise, matchRoutes, writeNodeResponse } from '../../http/index.js'
import { lastResort } from './errors.js'
import { rememberRoutes } from './openapi-routes.js'
import { answer, DONE } from './reply.js'
import { nodeApiRequest, type NodeHttpOptions } from './request.js'
import { routedPath, routeMiss } from './routing.js'

/** Options of `router`. */
export interface NodeRouterOptions extends NodeHttpOptions {
  /**
   * A path the routes are mounted under (`'/v1'`: `route('/books/', …)` answers `/v1/books/`).
   * Requests outside it are DRF's 404. @default none
   */
  readonly prefix?: string
}

/**
 * A node:http request listener. A listener gatehouse made also takes the request's path
 * parameters, for an app that matched the route itself (`guarded(req, res, { id })`).
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, params?: Readonly<Record<string, string>>) => Promise<void>

/** Answers every request with `view` (which never throws); a malformed Host is a 400. */
export function viewHandler(view: ApiView, options: NodeHttpOptions = {}): NodeHandler {
  const fixed = options.params
  return (req, res, given) => serveView(view, options, req, res, given ?? fixed)
}

/** One request answered by `view` (which never throws); a malformed Host is a 400. Never rejects. */
function serveView(
  view: ApiView,
  options: NodeHttpOptions,
  req: IncomingMessage,
  res: ServerResponse,
  params: Readonly<Record<string, string>> | undefined,
): Promise<void> {
  try {
    const request = nodeApiRequest(req, options, params)
    if (request === null) {
      writeNodeResponse(res, INVALID_HOST_RESPONSE, view.settings)
      return DONE
    }
    const answer = view.handle(request) as ApiResponse | Promise<ApiResponse>
    // A view that answered synchronously is written now: no promise of ours in between.
    if (!isPromise(answer)) {
      writeView(view, req, res, answer)
      return DONE
    }
    return answer.then(
      (response) => writeView(view, req, res, response),
      (error: unknown) => lastResort(error, req, res),
    )
  } catch (error) {
    lastResort(error, req, res)
    return DONE
  }
}

function writeView(view: ApiView, req: IncomingMessage, res: ServerResponse, response: ApiResponse): void {
  // A body left unread past the limit is not drained: the connection closes instead.
  if (response.status === 413 && !req.complete) res.setHeader('Connection', 'close')
  writeNodeResponse(res, response, view.settings)
}

/**
 * Routes requests to views: `routes` is a list of `Route`s (`route('/books/:id/', view)`, path
 * parameters reach `ctx.params`). The query is ignored and the trailing slash is significant,
 * as in DRF's URL conf; the path is matched percent-decoded (`%2F` is a `/`) and
 * case-sensitively, with dot segments kept as sent (`/api/./x/` is no route, as in Django);
 * an unknown path is DRF's 404 `Not found.`. A handler to compose with your own;
 * `mountRoutes` installs it on a server.
 */
export function router(routes: readonly Route[], options: NodeRouterOptions = {}): NodeHandler {
  const match = matchRoutes(routes)
  const prefix = (options.prefix ?? '').replace(/\/$/, '')
  // Found by `openApiRoutes(server)`: the router's table, under its prefix.
  return rememberRoutes((req, res) => {
    try {
      const path = routedPath(req, options)
      if (path === null) return answer(res, INVALID_HOST_RESPONSE)
      if (prefix !== '' && !path.startsWith(`${prefix}/`)) return answer(res, routeMiss(req, options))
      const found = match(path.slice(prefix.length))
      if (found === null) return answer(res, routeMiss(req, options))
      return serveView(found.route.view, options, req, res, found.params)
    } catch (error) {
      lastResort(error, req, res)
      return DONE
    }
  }, routes, prefix)
}

/**
 * Mounts DRF-style views on a node:http server: each request is answered by the view its
 * path matches (which answers 405 itself), an unknown path by DRF's 404 (see `router`).
 *
 * @example
 * const server = mountRoutes(createServer(), [route('/api/books/:id/', book)])
 * server.listen(8000)
 */
export function mountRoutes<S extends Server>(target: S, routes: readonly Route[], options: NodeRouterOptions = {}): S {
  target.on('request', router(routes, options))
  return target
}
