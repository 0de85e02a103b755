import { enforceCsrf } from '../authentication/csrf.js'
import type { ApiRequest } from '../core/api-request.js'
import type { ApiResponse } from '../core/api-response.js'
import type { Handler } from '../core/view.js'
import { checkCredentials } from '../views/authenticate-credentials.js'
import { pageCsrf } from './admin-auth.js'
import { formField } from './admin-forms.js'
import type { ResolvedAdminOptions } from './admin-options.js'
import { csrfInput, h, htmlResponse, redirect, renderPage } from './admin-page.js'

/** Django admin's message for bad credentials, and for a good password of an account that is not staff. */
export const STAFF_LOGIN_MESSAGE = 'Please enter the correct username and password for a staff account. Note that both fields may be case-sensitive.'

/**
 * Where to go after login: `next` when it is a path of the admin, else the admin's front
 * page. What it accepts Django's `url_has_allowed_host_and_scheme` accepts too (with no host
 * allowed: a path, never another site such as `//evil.example` or `/\\evil`, which browsers
 * read as `//evil`), and `redirect` percent-encodes it as Django's `iri_to_uri`, so any
 * character (non-ASCII, DEL, a control character) is sent as a valid `Location`. Linear.
 */
export function safeNext(next: string, prefix: string): string {
  // As Django (and browsers) read it: tab and line breaks dropped (Python's urlsplit), every
  // backslash a slash (Chrome). A path under the prefix stays one unless that makes it `//host`.
  const read = next.replace(/[\t\r\n]/g, '').replace(/\\/g, '/')
  if (next.startsWith(prefix) && !read.startsWith('//')) return next
  return prefix
}

function loginForm(req: ApiRequest, options: ResolvedAdminOptions, next: string, message: string | null, username: string, status: number): ApiResponse {
  const csrf = pageCsrf(req, options)
  const body = `<section class="card">
${message === null ? '' : `<p class="message error">${h(message)}</p>`}
<form method="post" action="${h(options.prefix)}login/">
${csrfInput(options.csrf.formField, csrf.token)}
<input type="hidden" name="next" value="${h(next)}">
<label for="id_username">Username</label>
<input type="text" id="id_username" name="username" value="${h(username)}" autocomplete="username" autofocus required maxlength="150">
<label for="id_password">Password</label>
<input type="password" id="id_password" name="password" autocomplete="current-password" required>
<p><button type="submit">Log in</button></p>
</form>
</section>`
  return htmlResponse(status, renderPage({ prefix: options.prefix, siteTitle: options.siteTitle, title: 'Log in', staff: null }, body), csrf.headers)
}

/**
 * `GET login/`: the form (a staff member already logged in goes on); `POST login/`: checks,
 * starts a session, redirects. The view's session scheme says who is logged in; the POST is
 * CSRF-checked whoever sends it, as Django's login view (`csrf_protect`).
 */
export function loginHandlers(options: ResolvedAdminOptions): { GET: Handler; POST: Handler } {
  const GET: Handler = async (ctx) => {
    const req = ctx.request
    const next = safeNext(req.url.searchParams.get('next') ?? '', options.prefix)
    if (ctx.user.isAuthenticated && ctx.user.isStaff) return redirect(next)
    return loginForm(req, options, next, null, '', 200)
  }
  const POST: Handler = async (ctx) => {
    const req = ctx.request
    await enforceCsrf(req, options.csrf)
    const data = await req.body()
    const username = formField(data, 'username').trim()
    const password = formField(data, 'password')
    const next = safeNext(formField(data, 'next'), options.prefix)
    if (username === '' || password === '' || username.length > 150) return loginForm(req, options, next, STAFF_LOGIN_MESSAGE, username.slice(0, 150), 200)
    const user = await checkCredentials(req, options.users, username, password, options.loginFailures)
    // Not staff answers as a wrong password does (Django's admin): the form says nothing about the account.
    if (user === null || !user.isStaff) return loginForm(req, options, next, STAFF_LOGIN_MESSAGE, username, 200)
    // A new session (the one the request named deleted) and a new CSRF secret, as Django's login().
    return redirect(next, 303, await options.login.login(req, user.id))
  }
  return { GET, POST }
}

/** `POST logout/` (CSRF-checked, with a session or without): ends the session, back to the login page. */
export function logoutHandler(options: ResolvedAdminOptions): Handler {
  return async (ctx) => {
    const req = ctx.request
    await enforceCsrf(req, options.csrf)
    return redirect(`${options.prefix}login/`, 303, await options.login.logout(req))
  }
}
