import { csrfSecretOf, enforceCsrf, maskCsrfSecret, newCsrfSecret } from '../authentication/csrf.js'
import type { ApiRequest } from '../core/api-request.js'
import type { ApiResponse } from '../core/api-response.js'
import { isApiError } from '../core/errors.js'
import type { StoredUser } from '../core/user.js'
import { csrfCookieHeader } from '../views/session-cookies.js'
import { h, htmlResponse, redirect, renderPage, type PageFrame } from './admin-page.js'
import type { ResolvedAdminOptions } from './admin-options.js'

/** The CSRF token a page's forms carry, and the cookie to set when the browser had none. */
export interface PageCsrf {
  /** A masked token (a new one per page, BREACH-safe) for the forms' hidden field. */
  readonly token: string
  /** `Set-Cookie` for a new secret when the request carried no valid one; else empty. */
  readonly headers: readonly (readonly [string, string])[]
}

/** The request's CSRF secret (from its cookie), or a new one set on the answer. */
export function pageCsrf(req: ApiRequest, options: ResolvedAdminOptions): PageCsrf {
  const existing = csrfSecretOf(req.cookie(options.cookies.csrfCookieName))
  if (existing !== null) return { token: maskCsrfSecret(existing), headers: [] }
  const secret = newCsrfSecret()
  return { token: maskCsrfSecret(secret), headers: [csrfCookieHeader(secret, req, options.cookies)] }
}

/**
 * The active user of the request's session, or `null` (no cookie, no live session, a gone or
 * inactive user, a password changed since the login), as `SessionAuthentication` reads it:
 * for an unsafe request of a live session it also runs Django's CSRF check, whose failure
 * throws `PermissionDenied` (the pages answer it with a 403 page).
 */
export async function sessionUser(req: ApiRequest, options: ResolvedAdminOptions): Promise<StoredUser | null> {
  const identity = await options.session.authenticate(req)
  // The scheme answers only stored users; the check keeps the type honest.
  return identity !== null && identity.user.isAuthenticated && identity.user.id !== null ? (identity.user as StoredUser) : null
}

/** A staff member on an admin page: who, the frame every page shares, and the CSRF headers to send. */
export interface StaffRequest {
  readonly user: StoredUser
  readonly frame: Omit<PageFrame, 'title'>
  readonly csrf: PageCsrf
}

/**
 * The gate of every admin page but login: no session (or an inactive user) is sent to the
 * login page; a logged-in user who is not staff gets a 403 page; an unsafe request of a
 * session must pass Django's CSRF check (`sessionUser` throws, the handler answers a 403 page). Answers the staff request, or the
 * response to send instead.
 */
export async function requireStaff(req: ApiRequest, options: ResolvedAdminOptions): Promise<StaffRequest | ApiResponse> {
  const user = await sessionUser(req, options)
  if (user === null) {
    // Back to this page after login (a GET only: a POST cannot be replayed by a redirect).
    const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.url.pathname + req.url.search)}` : ''
    return redirect(`${options.prefix}login/${next}`)
  }
  const csrf = pageCsrf(req, options)
  const frame = { prefix: options.prefix, siteTitle: options.siteTitle, staff: { username: user.username, csrfToken: csrf.token, csrfField: options.csrf.formField } }
  if (!user.isStaff) {
    const body = `<section class="card"><p>You are logged in as <strong>${h(user.username)}</strong>, but are not authorized to access this page. Log out and log in as a staff account.</p></section>`
    return htmlResponse(403, renderPage({ ...frame, title: 'Forbidden' }, body), csrf.headers)
  }
  // An unsafe request already passed the CSRF check in sessionUser (the session scheme's).
  return { user, frame, csrf }
}

/** Django's CSRF check on an unsafe request: `null` when it passes, else the 403 page (with Django's reason). */
export async function csrfRefusal(req: ApiRequest, options: ResolvedAdminOptions): Promise<ApiResponse | null> {
  try {
    await enforceCsrf(req, options.csrf)
    return null
  } catch (error) {
    if (!isApiError(error)) throw error
    return errorPage(options, error.status, typeof error.detail === 'string' ? error.detail : 'The request was refused.')
  }
}

/** A page for a refused request (CSRF, a malformed body, a store outage): its status, its message. */
export function errorPage(options: ResolvedAdminOptions, status: number, message: string, headers: readonly (readonly [string, string])[] = []): ApiResponse {
  const frame: PageFrame = { prefix: options.prefix, siteTitle: options.siteTitle, title: status === 403 ? 'Forbidden' : 'Request refused', staff: null }
  return htmlResponse(status, renderPage(frame, `<section class="card"><p class="message error">${h(message)}</p><p><a href="${h(options.prefix)}">Back to the administration</a></p></section>`), headers)
}
