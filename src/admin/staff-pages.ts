import type { ApiResponse } from '../core/api-response.js'
import type { Permission } from '../core/permission.js'
import type { StoredUser, User, UserId } from '../core/user.js'
import type { Handler, RequestContext } from '../core/view.js'
import { staffRequest, type StaffRequest } from './admin-auth.js'
import type { ResolvedAdminOptions } from './admin-options.js'
import { csrfInput, h, htmlResponse, renderPage } from './admin-page.js'

/** A user id from a path segment: an integer id as a number, anything else (a UUID) as text. */
export function parseUserId(text: string): UserId {
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : text
}

/** A status tag (`active`/`inactive`). */
export function tag(on: boolean, yes: string, no: string): string {
  return `<span class="tag ${on ? 'on' : 'off'}">${on ? yes : no}</span>`
}

/** A staff page: the shared frame, `title`, `body`; the CSRF cookie when the browser had none. */
export function page(staff: StaffRequest, title: string, body: string, status = 200): ApiResponse {
  return htmlResponse(status, renderPage({ ...staff.frame, title }, body), staff.csrf.headers)
}

/** A POST form with one button (the CSRF field included). */
export function buttonForm(staff: StaffRequest, options: ResolvedAdminOptions, action: string, label: string, fields: Readonly<Record<string, string>> = {}, kind = ''): string {
  const hidden = Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${h(name)}" value="${h(value)}">`).join('')
  return `<form class="inline" method="post" action="${h(action)}">${csrfInput(options.csrf.formField, staff.csrf.token)}${hidden}<button type="submit"${kind === '' ? '' : ` class="${kind}"`}>${h(label)}</button></form>`
}

/** A staff page's handler: `handle` with the staff member its view's permissions let through. */
export function staffPage(options: ResolvedAdminOptions, handle: (ctx: RequestContext, staff: StaffRequest) => Promise<ApiResponse>): Handler {
  return async (ctx) => handle(ctx, staffRequest(ctx, options))
}

/**
 * May `staff` change `target` on these pages? Their own account, and any account that is
 * neither staff nor superuser; staff and superuser accounts only a superuser may change
 * (Django grants nothing to `is_staff` alone: without this, any staff member could take
 * over any other, superusers included).
 */
export function mayChange(staff: User, target: StoredUser): boolean {
  return staff.id === target.id || staff.isSuperuser === true || (!target.isStaff && target.isSuperuser !== true)
}

/**
 * May `staff` be shown a new token key of `target`? Their own; another user's only as a
 * superuser (a key shown is the account: whoever holds it acts as that user).
 */
export function mayRevealKey(staff: User, target: StoredUser): boolean {
  return staff.id === target.id || staff.isSuperuser === true
}

export const SUPERUSERS_ONLY = 'Only a superuser can change a staff or superuser account.'

export const KEYS_SUPERUSERS_ONLY = 'Only a superuser can be shown a token key of another user.'

/** Object permission of the actions on an account (`checkObjectPermissions(ctx, account)`): `mayChange`. */
export const CHANGE_ACCOUNT: Permission = Object.freeze<Permission>({
  hasPermission: () => true,
  hasObjectPermission: (ctx, target) => mayChange(ctx.user, target as StoredUser),
  message: SUPERUSERS_ONLY,
})

/** Object permission of showing an account's new token key: `mayRevealKey`. */
export const REVEAL_KEY: Permission = Object.freeze<Permission>({
  hasPermission: () => true,
  hasObjectPermission: (ctx, target) => mayRevealKey(ctx.user, target as StoredUser),
  message: KEYS_SUPERUSERS_ONLY,
})

export function userPath(options: ResolvedAdminOptions, id: UserId): string {
  return `${options.prefix}users/${encodeURIComponent(String(id))}/`
}
/** The user named by the path, or the 404 page. */
export async function pathUser(ctx: RequestContext, staff: StaffRequest, options: ResolvedAdminOptions): Promise<StoredUser | ApiResponse> {
  const user = await options.users.findById(parseUserId(ctx.params['id'] ?? ''))
  return user ?? page(staff, 'No such user', `<section class="card"><p>There is no such user.</p><p><a href="${h(options.prefix)}">Back to the users</a></p></section>`, 404)
}
