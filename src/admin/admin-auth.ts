import type { ApiRequest } from '../core/api-request.js'
import type { ApiResponse } from '../core/api-response.js'
import { isApiError, NotAuthenticated, Throttled } from '../core/errors.js'
import { renderApiError, type ExceptionHandler } from '../core/exception-handler.js'
import type { Permission } from '../core/permission.js'
import type { RequestContext } from '../core/pipeline.js'
import type { StoredUser, User } from '../core/user.js'
import { IsAdminUser } from '../permissions/is-admin-user.js'
import type { CsrfToken } from '../views/session-login.js'
import { h, htmlResponse, redirect, renderPage, type PageFrame } from './admin-page.js'
import type { ResolvedAdminOptions } from './admin-options.js'

/** The CSRF token a page's forms carry (a new mask per page), and the cookie to set when the browser had none. */
export function pageCsrf(req: ApiRequest, options: ResolvedAdminOptions): CsrfToken {
  return options.login.csrfToken(req)
}

/** A logged-in user on an admin page: who, the frame every page shares, and the CSRF headers to send. */
export interface StaffRequest {
  readonly user: StoredUser
  readonly frame: Omit<PageFrame, 'title'>
  readonly csrf: CsrfToken
}

function signedIn(req: ApiRequest, user: StoredUser, options: ResolvedAdminOptions): StaffRequest {
  const csrf = pageCsrf(req, options)
  return { user, csrf, frame: { prefix: options.prefix, siteTitle: options.siteTitle, staff: { username: user.username, csrfToken: csrf.token, csrfField: options.csrf.formField } } }
}

/** A user the session scheme answered (a stored user), or `null` for the anonymous one. */
function storedUser(user: User | undefined): StoredUser | null {
  // The session scheme answers only stored users; the check keeps the type honest.
  return user !== undefined && user.isAuthenticated && user.id !== null ? (user as StoredUser) : null
}

/** The staff member a page's handler serves: its view's permissions let only staff through. */
export function staffRequest(ctx: RequestContext, options: ResolvedAdminOptions): StaffRequest {
  const user = storedUser(ctx.user)
  if (user === null) throw new NotAuthenticated()
  return signedIn(ctx.request, user, options)
}

/**
 * The staff pages' permissions, checked by each view before its handler: the session's user is
 * staff (DRF's `IsAdminUser`); a page that acts on an account adds its object rule
 * (`checkObjectPermissions(ctx, account)` in the handler).
 */
export const STAFF_ONLY: readonly Permission[] = Object.freeze([new IsAdminUser()])

/**
 * The pages' exception handler (a view's own, as DRF's `get_exception_handler`): what the
 * request earned as an HTML page. Not logged in: the login page (with `?next=` for a GET: a
 * POST cannot be replayed by a redirect). Logged in but refused: a 403 page with the logout
 * form (not staff: Django admin's message). Any other refusal (a CSRF failure, a malformed body,
 * a 415, a throttled login, a store outage) is a page with its status and message. What is
 * not an `ApiError` is the API's: a logged 500, or a 503 for a store that is down.
 */
export function adminExceptionHandler(options: ResolvedAdminOptions): ExceptionHandler {
  return (error, ctx) => {
    if (!isApiError(error)) return renderApiError(error, ctx)
    const req = ctx.request
    if (error.status === 401) {
      const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.url.pathname + req.url.search)}` : ''
      return redirect(`${options.prefix}login/${next}`)
    }
    const message = typeof error.detail === 'string' ? error.detail : 'The request was refused.'
    const user = storedUser(ctx.user)
    if (error.status === 403 && user !== null) {
      const staff = signedIn(req, user, options)
      const body = user.isStaff
        ? `<section class="card"><p class="message error">${h(message)}</p><p><a href="${h(backLink(req, options))}">Back</a></p></section>`
        : `<section class="card"><p>You are logged in as <strong>${h(user.username)}</strong>, but are not authorized to access this page. Log out and log in as a staff account.</p></section>`
      return htmlResponse(403, renderPage({ ...staff.frame, title: 'Forbidden' }, body), staff.csrf.headers)
    }
    const retry: readonly (readonly [string, string])[] = error instanceof Throttled && error.wait !== null ? [['Retry-After', String(error.wait)]] : []
    return errorPage(options, error.status, message, [...retry, ...error.headers])
  }
}

/** Where a refused staff member goes back to: the page of the user the path names, else the front page. */
function backLink(req: ApiRequest, options: ResolvedAdminOptions): string {
  const id = req.params['id']
  return id === undefined ? options.prefix : `${options.prefix}users/${encodeURIComponent(id)}/`
}

/** A page for a refused request (CSRF, a malformed body, a store outage): its status, its message. */
export function errorPage(options: ResolvedAdminOptions, status: number, message: string, headers: readonly (readonly [string, string])[] = []): ApiResponse {
  const frame: PageFrame = { prefix: options.prefix, siteTitle: options.siteTitle, title: status === 403 ? 'Forbidden' : 'Request refused', staff: null }
  return htmlResponse(status, renderPage(frame, `<section class="card"><p class="message error">${h(message)}</p><p><a href="${h(options.prefix)}">Back to the administration</a></p></section>`), headers)
}
