// The app's routes as a framework lists them (Fastify's `onRoute`, Hono's `app.routes`), looked
// up by a request path: which methods the routes of that path take, and whether one of them is
// guarded by `policies()`. What DRF's 405 for an app's own routes needs.
import type { Policies } from '../core/policies.js'
import { matchRoutes, type RouteMatcher } from '../core/route.js'
import { policiesOf } from './policy-route.js'

/** One registered route: its path as the framework spells it, its methods, its handlers (read when looked up, as hooks may add some). */
export interface TableRoute {
  readonly path: string
  readonly methods: readonly string[]
  handlers(): readonly unknown[]
}

/** What the routes of one request path take. */
export interface PathMethods {
  readonly methods: ReadonlySet<string>
  /** The policies of the first guarded route of the path, or `undefined`: none is. */
  readonly policies: Policies | undefined
}

/**
 * For an adapter's DRF 405 on the app's own routes: the routes of an app, added as the
 * framework registers them (Fastify's `onRoute`, Hono's `app.routes`), looked up per request
 * path; answer with `answerOtherMethod`. A path the core's matcher
 * cannot read (a wildcard, a regular expression it does not know) is left out: the app's own
 * answer stands for it. Matching is strict and case-sensitive (DRF's URL conf rules), so an
 * app routing otherwise gets its framework's answer where the two differ, never a wrong 405.
 */
export class OwnRouteTable {
  private readonly routes: { readonly route: TableRoute; readonly match: RouteMatcher<{ readonly path: string }> }[] = []

  add(route: TableRoute): void {
    let match: RouteMatcher<{ readonly path: string }>
    try {
      // A constrained parameter (`:id(\\d+)`) is left out too: the core's matcher would take any value.
      match = matchRoutes([{ path: route.path }])
    } catch {
      return
    }
    this.routes.push({ route, match })
  }

  /** The methods the routes matching `path` take, and the first guarded one's policies. */
  lookup(path: string): PathMethods {
    const methods = new Set<string>()
    let policies: Policies | undefined
    for (const { route, match } of this.routes) {
      if (match(path) === null) continue
      for (const method of route.methods) methods.add(method.toUpperCase())
      if (policies === undefined) for (const handler of route.handlers()) policies ??= policiesOf(handler)
    }
    return { methods, policies }
  }

  /** The policies `handler` runs when it is a `policies()` middleware (or node:http's guarded handler), else `undefined`: for an adapter reading its framework's routes itself. */
  static policiesOf(handler: unknown): Policies | undefined {
    return policiesOf(handler)
  }

  /** Whether a request with `method` should get the 405: a guarded route has the path and none takes the method. */
  static isOtherMethod(found: PathMethods, method: string): found is PathMethods & { readonly policies: Policies } {
    return isOtherMethod(found, method)
  }
}

function isOtherMethod(found: PathMethods, method: string): found is PathMethods & { readonly policies: Policies } {
  const upper = method.toUpperCase()
  return found.policies !== undefined && found.methods.size > 0 && !found.methods.has(upper) && !(upper === 'HEAD' && found.methods.has('GET'))
}
