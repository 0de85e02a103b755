// DRF's 405 for the app's own routes on Express: a request no route answered, whose path a
// `policies()`-guarded route matches for other methods, is DRF's `405` with `Allow` listing
// every method the app's routes (in every router) take for that path.
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { Policies } from '../../index.js'
import { answerOtherMethod, isPromise, OwnRouteTable, writeNodeResponse } from '../../http/index.js'
import { toApiRequest } from './request.js'

/** The parts of an Express 4 or 5 router layer read here. */
interface Layer {
  readonly route?: { readonly stack?: readonly { readonly method?: string; readonly handle?: unknown }[] }
  readonly handle?: { readonly stack?: unknown }
  /** Express 4: `true` and the matched part in `path`; Express 5: `false` or `{ path }`. */
  match?(path: string): unknown
  readonly path?: unknown
}

/** What the app's routes take for one path. */
interface PathRoutes {
  readonly methods: Set<string>
  /** A route for every method (`all()`) matched: it had its chance, and is not ours to answer. */
  anyMethod: boolean
  /** The policies of the first guarded route that matched. */
  policies: Policies | undefined
}

/** The layers of an app (Express 4 keeps its router in `_router`; Express 5's `app.router` getter makes it). */
function appStack(app: unknown): readonly Layer[] {
  const a = app as { readonly _router?: { readonly stack?: unknown }; readonly router?: { readonly stack?: unknown } }
  const stack = '_router' in (app as object) ? a._router?.stack : a.router?.stack
  return Array.isArray(stack) ? (stack as Layer[]) : []
}

/** The part of `path` `layer` matches, as Express matches it (the router's `strict` and case options), or `null`. */
function matched(layer: Layer, path: string): string | null {
  let result: unknown
  try {
    result = layer.match?.(path)
  } catch {
    // Express 4 throws on a malformed escape in a parameter: that route takes nothing here.
    return null
  }
  if (result === true) return typeof layer.path === 'string' ? layer.path : ''
  if (typeof result === 'object' && result !== null && typeof (result as { path?: unknown }).path === 'string') return (result as { path: string }).path
  return null
}

/** Adds what the routes of `stack` (and of the routers mounted in it) take for `path`. */
function collect(stack: readonly Layer[], path: string, found: PathRoutes): void {
  for (const layer of stack) {
    const part = matched(layer, path)
    if (part === null) continue
    if (layer.route !== undefined) {
      for (const sub of layer.route.stack ?? []) {
        if (sub.method === undefined) found.anyMethod = true
        else found.methods.add(sub.method.toUpperCase())
        found.policies ??= OwnRouteTable.policiesOf(sub.handle)
      }
      continue
    }
    const inner = layer.handle?.stack
    if (!Array.isArray(inner)) continue
    const rest = path.slice(part.length)
    collect(inner as Layer[], rest.startsWith('/') ? rest : `/${rest}`, found)
  }
}

/**
 * Answers a request no route answered when a route guarded by `policies()` has its path:
 * DRF's 405 (or OPTIONS' metadata) with `Allow`, after that route's policies. Returns `false`
 * (nothing sent) otherwise: no route has the path, none of those that have it is guarded, or
 * one takes the method (it passed the request on).
 */
export function answerOwnRouteMethod(req: Request, res: Response, next: NextFunction): boolean {
  if (res.headersSent) return false
  const found: PathRoutes = { methods: new Set(), anyMethod: false, policies: undefined }
  collect(appStack(req.app), `${req.baseUrl}${req.path}`, found)
  const method = req.method.toUpperCase()
  if (found.policies === undefined || found.anyMethod || found.methods.has(method) || (method === 'HEAD' && found.methods.has('GET'))) return false
  const routePolicies = found.policies
  const answer = answerOtherMethod(routePolicies, toApiRequest(req), found.methods)
  if (!isPromise(answer)) writeNodeResponse(res, answer, routePolicies.settings)
  else answer.then((response) => writeNodeResponse(res, response, routePolicies.settings), next)
  return true
}

/** `answerOwnRouteMethod` as middleware: passes the request on when it does not answer it. */
export const ownRouteMethods: RequestHandler = (req, res, next) => {
  if (!answerOwnRouteMethod(req, res, next)) next()
}
