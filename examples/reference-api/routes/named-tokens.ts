import { route, type Route } from 'drf-gatehouse'
import { namedTokenDetailView, namedTokensView, revokeAllNamedTokensView } from 'drf-gatehouse'
import type { ReferenceRoutesContext } from '../context.js'

/** Named tokens one user may hold in the reference API. */
export const MAX_TOKENS_PER_USER = 100

/**
 * The safer token mode's routes: list and create the requester's named tokens, revoke one,
 * revoke all. Authenticated by the default schemes (Basic with a password obtains a first token).
 */
export function namedTokenRoutes(ref: ReferenceRoutesContext): Route[] {
  const { api, namedTokens: tokens } = ref
  return [
    route('/api/auth/tokens/', api.view(namedTokensView({ tokens, maxTokensPerUser: MAX_TOKENS_PER_USER }))),
    // Declared before `:id`, for routers that match in declaration order.
    route('/api/auth/tokens/revoke-all/', api.view(revokeAllNamedTokensView({ tokens }))),
    route('/api/auth/tokens/:id/', api.view(namedTokenDetailView({ tokens }))),
  ]
}
