import type { ApiResponse } from '../core/api-response.js'
import type { StoredUser, UserId } from '../core/user.js'
import type { Handler, RequestContext } from '../core/view.js'
import type { NamedTokenInfo } from '../stores/named-token-store.js'
import { updateSessionAuthHash } from '../authentication/session-auth-hash.js'
import { UserCreatedHookError } from '../stores/user-created-hook.js'
import { requireStaff, type StaffRequest } from './admin-auth.js'
import { adminHandler, formField } from './admin-handler.js'
import type { ResolvedAdminOptions } from './admin-options.js'
import { csrfInput, h, htmlResponse, redirect, renderPage, shownDate } from './admin-page.js'

/** Django's username rule: 1 to 150 letters, digits and `@.+-_` (Unicode letters and digits included). */
const USERNAME = /^[\p{L}\p{N}_.@+-]{1,150}$/u
/** Longest password accepted from the form (Django's admin has no limit; hashing a megabyte is a waste). */
const MAX_PASSWORD = 4096

/** Messages a redirect after a change names (`?done=…`): a fixed table, never text from the URL. */
const DONE: Readonly<Record<string, string>> = Object.freeze({
  created: 'The user was created.',
  'created-hook-failed': 'The user was created, but the onUserCreated hook failed (the server log has the error).',
  activated: 'The user was activated: their password, token and sessions work again.',
  deactivated: 'The user was deactivated: their password, token and sessions stopped working.',
  password: 'The password was changed.',
  'token-deleted': 'The token was deleted: its key stopped working.',
  'token-none': 'The user had no token.',
  'token-exists': 'The user already has a token: regenerate it to hand out a new key.',
  revoked: 'The named token was revoked.',
  'revoke-none': 'That named token no longer exists.',
  sessions: 'The user’s sessions were ended.',
})

/** A user id from a path segment: an integer id as a number, anything else (a UUID) as text. */
export function parseUserId(text: string): UserId {
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : text
}

function tag(on: boolean, yes: string, no: string): string {
  return `<span class="tag ${on ? 'on' : 'off'}">${on ? yes : no}</span>`
}

function page(staff: StaffRequest, title: string, body: string, status = 200): ApiResponse {
  return htmlResponse(status, renderPage({ ...staff.frame, title }, body), staff.csrf.headers)
}

/** A POST form with one button (the CSRF field included). */
function buttonForm(staff: StaffRequest, options: ResolvedAdminOptions, action: string, label: string, fields: Readonly<Record<string, string>> = {}, kind = ''): string {
  const hidden = Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${h(name)}" value="${h(value)}">`).join('')
  return `<form class="inline" method="post" action="${h(action)}">${csrfInput(options.csrf.formField, staff.csrf.token)}${hidden}<button type="submit"${kind === '' ? '' : ` class="${kind}"`}>${h(label)}</button></form>`
}

/** The staff gate, then `handle`; a refusal of the gate is the answer. */
function staffOnly(options: ResolvedAdminOptions, handle: (ctx: RequestContext, staff: StaffRequest) => Promise<ApiResponse>): Handler {
  return adminHandler(options, async (ctx) => {
    const staff = await requireStaff(ctx.request, options)
    return 'status' in staff ? staff : handle(ctx, staff)
  })
}

/** `GET /admin/`: users by username, searched with `?q=`, `?page=` of `pageSize`. */
export function userListHandler(options: ResolvedAdminOptions): Handler {
  return staffOnly(options, async (ctx, staff) => {
    const params = ctx.request.url.searchParams
    const search = (params.get('q') ?? '').trim().slice(0, 150)
    const pageText = params.get('page') ?? '1'
    const pageNumber = /^[0-9]{1,6}$/.test(pageText) && Number(pageText) >= 1 ? Number(pageText) : 1
    const { users, count } = await options.users.list({ search, offset: (pageNumber - 1) * options.pageSize, limit: options.pageSize })
    const pages = Math.max(1, Math.ceil(count / options.pageSize))
    const link = (n: number): string => `${options.prefix}?${new URLSearchParams({ ...(search === '' ? {} : { q: search }), page: String(n) }).toString()}`
    const rows = users
      .map((u) => `<tr><td><a href="${h(userPath(options, u.id))}">${h(u.username)}</a></td><td>${tag(u.isActive, 'active', 'inactive')}</td><td>${u.isStaff ? tag(true, 'staff', '') : ''}</td></tr>`)
      .join('\n')
    const body = `<form class="search" method="get" action="${h(options.prefix)}"><input type="search" name="q" value="${h(search)}" placeholder="Search usernames" aria-label="Search usernames"><button type="submit" class="secondary">Search</button></form>
<p><a href="${h(options.prefix)}users/add/">Add a user</a> <span class="muted">· ${count} user${count === 1 ? '' : 's'}${search === '' ? '' : ` matching “${h(search)}”`}</span></p>
<table><thead><tr><th>Username</th><th>Status</th><th>Role</th></tr></thead>
<tbody>
${rows === '' ? '<tr><td colspan="3" class="muted">No users.</td></tr>' : rows}
</tbody></table>
<nav class="pages">${pageNumber > 1 ? `<a href="${h(link(pageNumber - 1))}">‹ Previous</a>` : ''}<span class="muted">Page ${Math.min(pageNumber, pages)} of ${pages}</span>${pageNumber < pages ? `<a href="${h(link(pageNumber + 1))}">Next ›</a>` : ''}</nav>`
    return page(staff, 'Users', body)
  })
}

/** The admin path of a user's page. */
export function userPath(options: ResolvedAdminOptions, id: UserId): string {
  return `${options.prefix}users/${encodeURIComponent(String(id))}/`
}

function addForm(staff: StaffRequest, options: ResolvedAdminOptions, errors: readonly string[], values: { username: string; isStaff: boolean; isActive: boolean }): ApiResponse {
  const body = `<section class="card">
${errors.map((e) => `<p class="message error">${h(e)}</p>`).join('\n')}
<form method="post" action="${h(options.prefix)}users/add/">
${csrfInput(options.csrf.formField, staff.csrf.token)}
<label for="id_username">Username</label>
<input type="text" id="id_username" name="username" value="${h(values.username)}" required maxlength="150" autocomplete="off">
<p class="muted">150 characters or fewer: letters, digits and @/./+/-/_ only.</p>
<label for="id_password1">Password</label>
<input type="password" id="id_password1" name="password1" autocomplete="new-password">
<label for="id_password2">Password (again)</label>
<input type="password" id="id_password2" name="password2" autocomplete="new-password">
<p class="muted">Leave both empty for an account with no usable password (tokens only).</p>
<label class="check"><input type="checkbox" name="is_active" value="1"${values.isActive ? ' checked' : ''}> Active</label>
<label class="check"><input type="checkbox" name="is_staff" value="1"${values.isStaff ? ' checked' : ''}> Staff (may use these pages)</label>
<p><button type="submit">Create the user</button></p>
</form>
</section>`
  return page(staff, 'Add a user', body, errors.length === 0 ? 200 : 400)
}

/** A password pair from a form: the password, `null` for none (both empty), or the errors. */
function passwordPair(data: unknown, allowNone: boolean): { password: string | null; errors: string[] } {
  const password = formField(data, 'password1')
  const again = formField(data, 'password2')
  if (password === '' && again === '') return allowNone ? { password: null, errors: [] } : { password: null, errors: ['Enter the new password twice.'] }
  if (password !== again) return { password: null, errors: ['The two password fields didn’t match.'] }
  if (password.length > MAX_PASSWORD) return { password: null, errors: [`The password is longer than ${MAX_PASSWORD} characters.`] }
  return { password, errors: [] }
}

/** `GET`/`POST users/add/`: the form, then the store's `create` (its `onUserCreated` hook included). */
export function userAddHandlers(options: ResolvedAdminOptions): { GET: Handler; POST: Handler } {
  const GET = staffOnly(options, async (_ctx, staff) => addForm(staff, options, [], { username: '', isStaff: false, isActive: true }))
  const POST = staffOnly(options, async (ctx, staff) => {
    const data = await ctx.request.body()
    const username = formField(data, 'username').trim()
    const values = { username: username.slice(0, 150), isStaff: formField(data, 'is_staff') !== '', isActive: formField(data, 'is_active') !== '' }
    const errors: string[] = []
    if (!USERNAME.test(username)) errors.push('Enter a valid username: 150 characters or fewer, letters, digits and @/./+/-/_ only.')
    const { password, errors: passwordErrors } = passwordPair(data, true)
    errors.push(...passwordErrors)
    if (errors.length === 0 && (await options.users.findByUsername(username)) !== null) errors.push('A user with that username already exists.')
    if (errors.length > 0) return addForm(staff, options, errors, values)
    let user: StoredUser
    try {
      user = await options.users.create({ username, password, isStaff: values.isStaff, isActive: values.isActive })
    } catch (error) {
      if (error instanceof UserCreatedHookError) {
        options.api.settings.logError(error, { method: ctx.request.method, path: ctx.request.url.pathname })
        return redirect(`${userPath(options, error.user.id)}?done=created-hook-failed`, 303)
      }
      // A concurrent create of the same name lost the unique race.
      if ((await options.users.findByUsername(username)) !== null) return addForm(staff, options, ['A user with that username already exists.'], values)
      throw error
    }
    return redirect(`${userPath(options, user.id)}?done=created`, 303)
  })
  return { GET, POST }
}

/** The user named by the path, or the 404 page. */
async function pathUser(ctx: RequestContext, staff: StaffRequest, options: ResolvedAdminOptions): Promise<StoredUser | ApiResponse> {
  const user = await options.users.findById(parseUserId(ctx.params['id'] ?? ''))
  return user ?? page(staff, 'No such user', `<section class="card"><p>There is no such user.</p><p><a href="${h(options.prefix)}">Back to the users</a></p></section>`, 404)
}

function namedTokenRows(staff: StaffRequest, options: ResolvedAdminOptions, user: StoredUser, tokens: readonly NamedTokenInfo[]): string {
  if (tokens.length === 0) return '<p class="muted">No named tokens.</p>'
  const now = Date.now()
  const rows = tokens.map((t) => {
    const expired = t.expiresAt !== null && t.expiresAt.getTime() <= now
    return `<tr><td>${h(t.name)}</td><td><code>${h(t.displayPrefix)}…</code></td><td>${h(shownDate(t.created))}</td><td>${t.expiresAt === null ? 'never' : `${h(shownDate(t.expiresAt))}${expired ? ' <span class="tag off">expired</span>' : ''}`}</td><td>${t.lastUsedAt === null ? 'never' : h(shownDate(t.lastUsedAt))}</td><td class="actions">${buttonForm(staff, options, `${userPath(options, user.id)}named-tokens/${t.id}/revoke/`, 'Revoke', {}, 'danger')}</td></tr>`
  })
  return `<table><thead><tr><th>Name</th><th>Prefix</th><th>Created</th><th>Expires</th><th>Last used</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`
}

/** `GET users/:id/`: the user, their token (created date only), named tokens, and every action's form. */
export function userDetailHandler(options: ResolvedAdminOptions): Handler {
  return staffOnly(options, async (ctx, staff) => {
    const found = await pathUser(ctx, staff, options)
    if ('status' in found) return found
    const user = found
    const base = userPath(options, user.id)
    const done = DONE[ctx.request.url.searchParams.get('done') ?? '']
    const parts: string[] = []
    if (done !== undefined) parts.push(`<p class="message">${h(done)}</p>`)
    parts.push(`<section class="card"><dl><dt>Username</dt><dd>${h(user.username)}</dd><dt>Id</dt><dd>${h(String(user.id))}</dd><dt>Status</dt><dd>${tag(user.isActive, 'active', 'inactive')} ${buttonForm(staff, options, `${base}active/`, user.isActive ? 'Deactivate' : 'Activate', { is_active: user.isActive ? '0' : '1' }, user.isActive ? 'danger' : '')}</dd><dt>Staff</dt><dd>${user.isStaff ? 'yes' : 'no'}</dd></dl></section>`)
    parts.push(`<h2>Password</h2><section class="card"><form method="post" action="${h(base)}password/">${csrfInput(options.csrf.formField, staff.csrf.token)}<label for="id_password1">New password</label><input type="password" id="id_password1" name="password1" autocomplete="new-password" required><label for="id_password2">New password (again)</label><input type="password" id="id_password2" name="password2" autocomplete="new-password" required><p><button type="submit">Set the password</button></p></form></section>`)
    if (options.tokens !== undefined) {
      const token = options.tokens.findByUser === undefined ? undefined : await options.tokens.findByUser(user.id)
      const state = token === undefined ? '<p class="muted">This token store cannot say whether the user has a token.</p>' : token === null ? '<p>No token.</p>' : `<p>A token created ${h(shownDate(token.created))}. Its key is not shown again; regenerate it to hand out a new one.</p>`
      const actions = [buttonForm(staff, options, `${base}token/`, token === null ? 'Create a token' : 'Regenerate the token', { action: token === null ? 'create' : 'regenerate' })]
      if (token !== null && options.tokens.delete !== undefined) actions.push(buttonForm(staff, options, `${base}token/delete/`, 'Delete the token', {}, 'danger'))
      parts.push(`<h2>API token</h2><section class="card">${state}<p>${actions.join(' ')}</p></section>`)
    }
    if (options.namedTokens !== undefined) {
      parts.push(`<h2>Named tokens</h2><section class="card">${namedTokenRows(staff, options, user, await options.namedTokens.list(user.id))}</section>`)
    }
    if (options.sessions.deleteForUser !== undefined) {
      parts.push(`<h2>Sessions</h2><section class="card"><p>Log the user out of every browser.</p><p>${buttonForm(staff, options, `${base}sessions/end/`, 'End all sessions', {}, 'danger')}</p></section>`)
    }
    parts.push(`<p><a href="${h(options.prefix)}">‹ All users</a></p>`)
    return page(staff, user.username, parts.join('\n'))
  })
}

/** A POST action on the user of the path: the gate, the user, then `act`, which answers where to go (`?done=`) or a page. */
function userAction(options: ResolvedAdminOptions, act: (user: StoredUser, ctx: RequestContext, staff: StaffRequest) => Promise<string | ApiResponse>): Handler {
  return staffOnly(options, async (ctx, staff) => {
    const found = await pathUser(ctx, staff, options)
    if ('status' in found) return found
    const outcome = await act(found, ctx, staff)
    return typeof outcome === 'string' ? redirect(`${userPath(options, found.id)}?done=${outcome}`, 303) : outcome
  })
}

/** Every POST action of a user's page, by route suffix. */
export function userActionHandlers(options: ResolvedAdminOptions): Readonly<Record<string, Handler>> {
  const actions: Record<string, Handler> = {
    'active/': userAction(options, async (user, ctx) => {
      const isActive = formField(await ctx.request.body(), 'is_active') === '1'
      await options.users.setActive(user.id, isActive)
      return isActive ? 'activated' : 'deactivated'
    }),
    'password/': userAction(options, async (user, ctx, staff) => {
      const { password, errors } = passwordPair(await ctx.request.body(), false)
      if (password === null) {
        return page(staff, user.username, `<p class="message error">${h(errors.join(' '))}</p><p><a href="${h(userPath(options, user.id))}">Back to ${h(user.username)}</a></p>`, 400)
      }
      await options.users.setPassword(user.id, password)
      // The user's sessions end with the change (their session auth hash moved on); a staff
      // member changing their own keeps this one, as Django's admin does.
      if (user.id === staff.user.id) await updateSessionAuthHash({ sessions: options.sessions, users: options.users }, ctx.request.cookie(options.cookies.cookieName) ?? '')
      return 'password'
    }),
    'sessions/end/': userAction(options, async (user) => {
      await options.sessions.deleteForUser?.(user.id)
      return 'sessions'
    }),
  }
  const tokens = options.tokens
  if (tokens !== undefined) {
    actions['token/'] = userAction(options, async (user, ctx, staff) => {
      const regenerate = formField(await ctx.request.body(), 'action') === 'regenerate'
      // "Create" never shows a key that already exists: only a new key is ever shown.
      if (!regenerate && tokens.findByUser !== undefined && (await tokens.findByUser(user.id)) !== null) return 'token-exists'
      const token = regenerate ? await tokens.regenerate(user.id) : await tokens.getOrCreate(user.id)
      // The key is shown on this answer only: never in a URL, a redirect or a listing.
      const body = `<section class="card"><p class="message">${regenerate ? 'A new token was made; the old key stopped working.' : 'The user’s token:'}</p>
<p>Copy the key now: it is not shown again.</p>
<code class="key" id="token-key">${h(token.key)}</code>
<p class="muted">Created ${h(shownDate(token.created))}. Clients send it as <code>Authorization: Token &lt;key&gt;</code>.</p>
<p><a href="${h(userPath(options, user.id))}">Back to ${h(user.username)}</a></p></section>`
      return page(staff, `Token of ${user.username}`, body)
    })
    if (tokens.delete !== undefined) {
      const remove = tokens.delete.bind(tokens)
      actions['token/delete/'] = userAction(options, async (user) => ((await remove(user.id)) ? 'token-deleted' : 'token-none'))
    }
  }
  const named = options.namedTokens
  if (named !== undefined) {
    actions['named-tokens/:tokenId/revoke/'] = userAction(options, async (user, ctx) => {
      const text = ctx.params['tokenId'] ?? ''
      const id = /^[0-9]{1,15}$/.test(text) ? Number(text) : null
      return id !== null && (await named.revoke(user.id, id)) ? 'revoked' : 'revoke-none'
    })
  }
  return actions
}
