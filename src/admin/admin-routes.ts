import { route, type Route } from '../core/route.js'
import type { Handler, HandlerMethod } from '../core/view.js'
import { AllowAny } from '../permissions/allow-any.js'
import { ADMIN_SECURITY_HEADERS } from './admin-page.js'
import { resolveAdminOptions, type AdminOptions, type ResolvedAdminOptions } from './admin-options.js'
import { ADMIN_STYLESHEET } from './admin-stylesheet.js'
import { loginHandlers, logoutHandler } from './login-pages.js'
import { userActionHandlers } from './user-actions.js'
import { userAddHandlers } from './user-add.js'
import { userDetailHandler } from './user-detail.js'
import { userListHandler } from './user-list.js'

/**
 * The administration pages as routes under `prefix` (default `/admin/`), mounted like any
 * gatehouse routes with each adapter's `mountRoutes` (Fastify, Express, Hono, node:http)
 * or node:http's `router`. Staff only, behind a session login with Django's CSRF check on every
 * change; every change is a POST; the pages carry no script (a CSP forbids any) and never
 * put a token in a URL. What they change goes through the stores, so the stores'
 * invalidation bus tells token caches at once.
 *
 * - `login/` (GET, POST), `logout/` (POST), `admin.css`
 * - `` (the front page): users, searched (`?q=`) and paged (`?page=`)
 * - `users/add/` (GET, POST): create a user (the store's `onUserCreated` hook runs)
 * - `users/:id/` (GET): the user, their token's created date, named tokens, and the forms of
 * - `users/:id/active/`, `password/`, `token/` (create or regenerate: the key is shown on that
 *   answer only), `token/delete/`, `named-tokens/:tokenId/revoke/`, `sessions/end/`,
 *   `jwt/blacklist-all/` (with a `jwtBlacklist` store) (POST)
 *
 * @example
 * import { adminRoutes } from 'gatehouse/admin'
 * await mountRoutes(app, adminRoutes({ api, users, sessions, tokens, namedTokens })) // gatehouse/fastify
 * @throws ConfigurationError for a bad option (a prefix without slashes, a user store without `list`).
 */
export function adminRoutes(options: AdminOptions): Route[] {
  const resolved = resolveAdminOptions(options)
  const { prefix } = resolved
  const routes: Route[] = []
  const add = (path: string, name: string, handlers: Partial<Record<HandlerMethod, Handler>>): void => {
    routes.push(route(`${prefix}${path}`, view(resolved, name, handlers)))
  }
  add('', 'Admin users', { GET: userListHandler(resolved) })
  add('login/', 'Admin login', loginHandlers(resolved))
  add('logout/', 'Admin logout', { POST: logoutHandler(resolved) })
  add('admin.css', 'Admin stylesheet', {
    GET: async () => ({
      status: 200,
      headers: [['Content-Type', 'text/css; charset=utf-8'], ...ADMIN_SECURITY_HEADERS.filter(([name]) => name !== 'Cache-Control'), ['Cache-Control', 'public, max-age=86400']],
      body: ADMIN_STYLESHEET,
    }),
  })
  // Before `users/:id/`: frameworks that try routes in order must see the static path first.
  add('users/add/', 'Admin add user', userAddHandlers(resolved))
  add('users/:id/', 'Admin user', { GET: userDetailHandler(resolved) })
  for (const [suffix, handler] of Object.entries(userActionHandlers(resolved))) add(`users/:id/${suffix}`, 'Admin user action', { POST: handler })
  return routes
}

/** One admin view: no API scheme, permission or throttle (the pages check the session and staff flag themselves), HTML only. */
function view(options: ResolvedAdminOptions, name: string, handlers: Partial<Record<HandlerMethod, Handler>>): ReturnType<ResolvedAdminOptions['api']['view']> {
  return options.api.view({ name, handlers, authentication: [], permissions: [new AllowAny()], throttles: [], formats: ['html'] })
}
