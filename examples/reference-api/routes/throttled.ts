import { route, type ApiView, type Route } from 'drf-gatehouse'
import type { PolicyContext } from 'drf-gatehouse'
import { ScopedRateThrottle } from 'drf-gatehouse'
import { obtainAuthTokenView } from 'drf-gatehouse'
import type { ReferenceRoutesContext } from '../context.js'

/** The scope and rate of the throttled token endpoint. */
export const TOKEN_OBTAIN_SCOPE = 'token-obtain'
export const TOKEN_OBTAIN_RATE = '5/min'

/**
 * A `ScopedRateThrottle` keyed by client address only (`throttle_token-obtain_<ip>`),
 * even when the request also carries valid credentials. On a login endpoint the
 * budget guards against password guessing from one client; keying by the
 * authenticated user (DRF's scoped behaviour) would let a client holding any
 * valid token or session escape the limit while guessing someone else's password.
 */
export class ClientScopedRateThrottle extends ScopedRateThrottle {
  override getCacheKey(ctx: PolicyContext): string | null {
    const scope = ctx.view.throttleScope
    return scope === null ? null : `throttle_${scope}_${this.getIdent(ctx)}`
  }
}

/**
 * `POST /api/auth/token/throttled/`: the token-obtain view with at most 5
 * requests per minute per client address; the 6th answers 429 with `Retry-After`.
 * Counters live in `ref.throttleStore` (Redis when `REDIS_URL` is set, so the
 * budget holds across instances), and the client address honours `numProxies`.
 */
export function throttledRoutes(ref: ReferenceRoutesContext): Route[] {
  const routes: Route[] = []
  const add = (path: string, view: ApiView): void => {
    routes.push(route(path, view))
  }
  const throttle = new ClientScopedRateThrottle({ store: ref.throttleStore, rates: { [TOKEN_OBTAIN_SCOPE]: TOKEN_OBTAIN_RATE } })
  add('/api/auth/token/throttled/',
    ref.api.view(
      obtainAuthTokenView({
        users: ref.users,
        tokens: ref.tokens,
        loginFailures: ref.loginFailures,
        name: 'Throttled Obtain Auth Token',
        throttles: [throttle],
        throttleScope: TOKEN_OBTAIN_SCOPE,
      }),
    ),
  )
  return routes
}
