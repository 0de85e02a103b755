import type { AuthenticationScheme } from '../core/authentication-scheme.js'
import type { Permission } from '../core/permission.js'
import { route, type Route } from '../core/route.js'
import type { Handler, HandlerMethod } from '../core/view.js'
import { AllowAny } from '../permissions/allow-any.js'
import { adminExceptionHandler, STAFF_ONLY } from './admin-auth.js'
import { ADMIN_SECURITY_HEADERS } from './admin-page.js'
import { resolveAdminOptions, type AdminOptions } from './admin-options.js'
import { ADMIN_STYLESHEET } from './admin-stylesheet.js'
import { loginHandlers, logoutHandler } from './login-pages.js'
import { userActions } from './user-actions.js'
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
 * import { adminRoutes } from 'drf-gatehouse/admin'
 * await mountRoutes(app, adminRoutes({ api, users, sessions, tokens, namedTokens })) // gatehouse/fastify
 * @throws ConfigurationError for a bad option (a prefix without slashes, a user store without `list`).
 */
export function adminRoutes(options: AdminOptions): Route[] {
  const resolved = resolveAdminOptions(options)
  const { prefix, api } = resolved
  const exceptionHandler = adminExceptionHandler(resolved)
  const anyone = [new AllowAny()]
  const routes: Route[] = []
  // Ordinary views: the session scheme (with its CSRF rule), the pages' permissions, no API
  // throttle, HTML only, and the pages' exception handler (a login redirect, HTML refusals).
  const add = (path: string, name: string, handlers: Partial<Record<HandlerMethod, Handler>>, permissions: readonly Permission[], authentication: readonly AuthenticationScheme[] = [resolved.session]): void => {
    routes.push(route(`${prefix}${path}`, api.view({ name, handlers, authentication, permissions, throttles: [], formats: ['html'], exceptionHandler })))
  }
  add('', 'Admin users', { GET: userListHandler(resolved) }, STAFF_ONLY)
  add('login/', 'Admin login', loginHandlers(resolved), anyone)
  add('logout/', 'Admin logout', { POST: logoutHandler(resolved) }, anyone)
  // No session read: the same sheet for everyone, cached by browsers and shared caches.
  const stylesheet: Handler = async () => ({
    status: 200,
    headers: [['Content-Type', 'text/css; charset=utf-8'], ...ADMIN_SECURITY_HEADERS.filter(([name]) => name !== 'Cache-Control'), ['Cache-Control', 'public, max-age=86400']],
    body: ADMIN_STYLESHEET,
  })
  add('admin.css', 'Admin stylesheet', { GET: stylesheet }, anyone, [])
  // Before `users/:id/`: frameworks that try routes in order must see the static path first.
  add('users/add/', 'Admin add user', userAddHandlers(resolved), STAFF_ONLY)
  add('users/:id/', 'Admin user', { GET: userDetailHandler(resolved) }, STAFF_ONLY)
  for (const [suffix, action] of Object.entries(userActions(resolved))) add(`users/:id/${suffix}`, 'Admin user action', { POST: action.handler }, action.permissions)
  return routes
}
