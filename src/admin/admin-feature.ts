import type { GatehouseFeature } from '../setup.js'
import type { AdminOptions } from './admin-options.js'
import { adminRoutes } from './admin-routes.js'

/**
 * Options of the {@link admin} feature: `adminRoutes`' own (prefix, page size, title, password
 * rules, cookies). The stores, the `api`, the session cookie and its CSRF rule, failed-login
 * throttling and the JWT blacklist come from `createGatehouse`.
 */
export type AdminFeatureOptions = Partial<Omit<AdminOptions, 'api' | 'users' | 'sessions' | 'tokens' | 'namedTokens' | 'jwtBlacklist' | 'loginFailures'>>

/**
 * The administration pages as a `createGatehouse` feature: `adminRoutes` on the call's `api`,
 * users, tokens, named tokens, sessions (the API's session cookie and CSRF rule, so a staff
 * login is one session for both), `loginFailures`, and the JWT feature's blacklist when the
 * call has one. Its routes are `auth.pages` (HTML, kept out of the OpenAPI document).
 *
 * @example
 * const auth = await createGatehouse({ database: process.env.DATABASE_URL, features: [admin({ siteTitle: 'Books admin' })] })
 * await mountRoutes(app, auth.pages) // /admin/
 */
export function admin(options: AdminFeatureOptions = {}): GatehouseFeature<undefined> {
  return {
    name: 'admin',
    setup: ({ users, tokens, namedTokens, sessions, loginFailures, schemes }) => ({
      parts: undefined,
      pages: ({ api, jwtBlacklist }) =>
        adminRoutes({
          cookieName: schemes.session.cookieName,
          csrf: schemes.session.csrf,
          ...options,
          api,
          users,
          tokens,
          namedTokens,
          sessions,
          loginFailures,
          jwtBlacklist,
        }),
    }),
  }
}
