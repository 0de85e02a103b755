import type { StoredUser } from '../core/user.js'
import type { Handler } from '../core/view.js'
import type { NamedTokenInfo } from '../stores/named-token-store.js'
import type { StaffRequest } from './admin-auth.js'
import type { ResolvedAdminOptions } from './admin-options.js'
import { csrfInput, h, shownDate } from './admin-page.js'
import { passwordHelp } from './password-rules.js'
import { buttonForm, mayChange, mayRevealKey, page, pathUser, staffPage, SUPERUSERS_ONLY, tag, userPath } from './staff-pages.js'

/** Messages a redirect after a change names (`?done=…`): a fixed table, never text from the URL. */
const DONE: Readonly<Record<string, string>> = Object.freeze({
  created: 'The user was created.',
  'created-hook-failed': 'The user was created, but the onUserCreated hook failed (the server log has the error).',
  activated: 'The user was activated: their password, token and sessions work again.',
  deactivated: 'The user was deactivated: their password, token and sessions stopped working.',
  password: 'The password was changed.',
  'password-jwt': 'The password was changed and the user’s refresh tokens were blacklisted: none refreshes again. Access tokens already issued work until they expire (minutes).',
  'token-deleted': 'The token was deleted: its key stopped working.',
  'token-none': 'The user had no token.',
  'token-exists': 'The user already has a token: regenerate it to hand out a new key.',
  revoked: 'The named token was revoked.',
  'revoke-none': 'That named token no longer exists.',
  sessions: 'The user’s sessions were ended.',
  'jwt-blacklisted': 'The user’s refresh tokens were blacklisted: none refreshes again. Access tokens already issued work until they expire (minutes); deactivate the user to stop them at once.',
  'jwt-none': 'The user had no refresh token left to blacklist.',
})

/** How many of a user's refresh tokens the page lists (newest first). */
const JWT_ROWS = 50

/** A user's JWT refresh tokens as a table (simplejwt's OutstandingToken/BlacklistedToken admin), with "blacklist all". */
async function jwtSection(staff: StaffRequest, options: ResolvedAdminOptions, user: StoredUser, canChange: boolean): Promise<string | null> {
  const store = options.jwtBlacklist
  if (store?.listForUser === undefined) return null
  const tokens = await store.listForUser(user.id, JWT_ROWS + 1)
  const now = Date.now()
  const rows = tokens.slice(0, JWT_ROWS).map((t) => {
    const expired = t.expiresAt.getTime() <= now
    const state = t.blacklistedAt === null ? (expired ? '<span class="tag off">expired</span>' : '<span class="tag on">outstanding</span>') : `<span class="tag off">blacklisted</span> ${h(shownDate(t.blacklistedAt))}`
    return `<tr><td><code>${h(t.jti)}</code></td><td>${t.createdAt === null ? '—' : h(shownDate(t.createdAt))}</td><td>${h(shownDate(t.expiresAt))}</td><td>${state}</td></tr>`
  })
  const table =
    tokens.length === 0
      ? '<p class="muted">No refresh tokens.</p>'
      : `<table><thead><tr><th>jti</th><th>Issued</th><th>Expires</th><th>Status</th></tr></thead><tbody>${rows.join('')}</tbody></table>${tokens.length > JWT_ROWS ? `<p class="muted">The ${JWT_ROWS} newest are shown.</p>` : ''}`
  const usable = tokens.some((t) => t.blacklistedAt === null && t.expiresAt.getTime() > now)
  const action = canChange && store.blacklistAllForUser !== undefined && usable ? `<p>${buttonForm(staff, options, `${userPath(options, user.id)}jwt/blacklist-all/`, 'Blacklist all refresh tokens', {}, 'danger')}</p>` : ''
  return `<h2>JWT refresh tokens</h2><section class="card">${table}${action}</section>`
}

/** The named tokens of a user as a table (name, display prefix, dates), each with its revoke form; never a token. */
function namedTokenRows(staff: StaffRequest, options: ResolvedAdminOptions, user: StoredUser, tokens: readonly NamedTokenInfo[], canChange: boolean): string {
  if (tokens.length === 0) return '<p class="muted">No named tokens.</p>'
  const now = Date.now()
  const rows = tokens.map((t) => {
    const expired = t.expiresAt !== null && t.expiresAt.getTime() <= now
    return `<tr><td>${h(t.name)}</td><td><code>${h(t.displayPrefix)}…</code></td><td>${h(shownDate(t.created))}</td><td>${t.expiresAt === null ? 'never' : `${h(shownDate(t.expiresAt))}${expired ? ' <span class="tag off">expired</span>' : ''}`}</td><td>${t.lastUsedAt === null ? 'never' : h(shownDate(t.lastUsedAt))}</td><td class="actions">${canChange ? buttonForm(staff, options, `${userPath(options, user.id)}named-tokens/${t.id}/revoke/`, 'Revoke', {}, 'danger') : ''}</td></tr>`
  })
  return `<table><thead><tr><th>Name</th><th>Prefix</th><th>Created</th><th>Expires</th><th>Last used</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`
}

/** `GET users/:id/`: the user, their token (created date only), named tokens, and every action's form. */
export function userDetailHandler(options: ResolvedAdminOptions): Handler {
  return staffPage(options, async (ctx, staff) => {
    const found = await pathUser(ctx, staff, options)
    if ('status' in found) return found
    const user = found
    const base = userPath(options, user.id)
    const done = DONE[ctx.request.url.searchParams.get('done') ?? '']
    // A staff or superuser account is shown to every staff member, changed by superusers only.
    const canChange = mayChange(staff.user, user)
    const parts: string[] = []
    if (done !== undefined) parts.push(`<p class="message">${h(done)}</p>`)
    if (!canChange) parts.push(`<p class="message" id="superusers-only">${h(SUPERUSERS_ONLY)}</p>`)
    const toggle = canChange ? ` ${buttonForm(staff, options, `${base}active/`, user.isActive ? 'Deactivate' : 'Activate', { is_active: user.isActive ? '0' : '1' }, user.isActive ? 'danger' : '')}` : ''
    parts.push(`<section class="card"><dl><dt>Username</dt><dd>${h(user.username)}</dd><dt>Id</dt><dd>${h(String(user.id))}</dd><dt>Status</dt><dd>${tag(user.isActive, 'active', 'inactive')}${toggle}</dd><dt>Staff</dt><dd>${user.isStaff ? 'yes' : 'no'}</dd><dt>Superuser</dt><dd>${user.isSuperuser === true ? 'yes' : 'no'}</dd></dl></section>`)
    if (canChange) {
      // "Blacklist all" beside the new password: a password change alone leaves refresh tokens working (unless `checkRevokeToken`).
      const jwt = options.jwtBlacklist?.blacklistAllForUser === undefined ? '' : '<label class="check"><input type="checkbox" name="blacklist_jwt" value="1" checked> Also blacklist all of the user’s JWT refresh tokens</label>'
      parts.push(`<h2>Password</h2><section class="card"><form method="post" action="${h(base)}password/">${csrfInput(options.csrf.formField, staff.csrf.token)}<label for="id_password1">New password</label><input type="password" id="id_password1" name="password1" autocomplete="new-password" required><label for="id_password2">New password (again)</label><input type="password" id="id_password2" name="password2" autocomplete="new-password" required>${passwordHelp(options)}${jwt}<p><button type="submit">Set the password</button></p></form></section>`)
    }
    if (options.tokens !== undefined) {
      const token = options.tokens.findByUser === undefined ? undefined : await options.tokens.findByUser(user.id)
      const state = token === undefined ? '<p class="muted">This token store cannot say whether the user has a token.</p>' : token === null ? '<p>No token.</p>' : `<p>A token created ${h(shownDate(token.created))}. Its key is not shown again; regenerate it to hand out a new one.</p>`
      const actions = canChange && mayRevealKey(staff.user, user) ? [buttonForm(staff, options, `${base}token/`, token === null ? 'Create a token' : 'Regenerate the token', { action: token === null ? 'create' : 'regenerate' })] : []
      if (canChange && token !== null && options.tokens.delete !== undefined) actions.push(buttonForm(staff, options, `${base}token/delete/`, 'Delete the token', {}, 'danger'))
      parts.push(`<h2>API token</h2><section class="card">${state}<p>${actions.join(' ')}</p></section>`)
    }
    if (options.namedTokens !== undefined) {
      parts.push(`<h2>Named tokens</h2><section class="card">${namedTokenRows(staff, options, user, await options.namedTokens.list(user.id), canChange)}</section>`)
    }
    const jwt = await jwtSection(staff, options, user, canChange)
    if (jwt !== null) parts.push(jwt)
    if (canChange && options.sessions.deleteForUser !== undefined) {
      parts.push(`<h2>Sessions</h2><section class="card"><p>Log the user out of every browser.</p><p>${buttonForm(staff, options, `${base}sessions/end/`, 'End all sessions', {}, 'danger')}</p></section>`)
    }
    parts.push(`<p><a href="${h(options.prefix)}">‹ All users</a></p>`)
    return page(staff, user.username, parts.join('\n'))
  })
}
