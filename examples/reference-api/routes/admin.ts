import type { Route } from 'gatehouse'
import { adminRoutes } from 'gatehouse/admin'
import type { ReferenceContext } from '../context.js'

/**
 * The administration pages at `/admin/` (staff only: the seed's `admin`), on the reference
 * API's stores and session cookies, so a change there reaches the API's token cache through
 * the stores' invalidation bus.
 */
export function referenceAdminRoutes(ref: ReferenceContext): Route[] {
  const { api, users, tokens, namedTokens, sessions, schemes, loginFailures } = ref
  return adminRoutes({
    api,
    users,
    tokens,
    namedTokens,
    // The JWT refresh tokens' part only when the JWT routes are on.
    jwtBlacklist: ref.jwt === null ? undefined : ref.jwtBlacklist,
    sessions,
    loginFailures,
    cookieName: schemes.session.cookieName,
    csrf: schemes.session.csrf,
    siteTitle: 'gatehouse reference API administration',
  })
}
