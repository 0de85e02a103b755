import type { ApiResponse } from '../core/api-response.js'
import { checkObjectPermissions } from '../core/object-permissions.js'
import type { Permission } from '../core/permission.js'
import type { StoredUser } from '../core/user.js'
import type { Handler, RequestContext } from '../core/view.js'
import { updateSessionAuthHash } from '../authentication/session-auth-hash.js'
import { STAFF_ONLY, type StaffRequest } from './admin-auth.js'
import { formField, passwordPair } from './admin-forms.js'
import type { ResolvedAdminOptions } from './admin-options.js'
import { h, redirect, shownDate } from './admin-page.js'
import { passwordProblems } from './password-rules.js'
import { CHANGE_ACCOUNT, page, pathUser, REVEAL_KEY, staffPage, userPath } from './staff-pages.js'

/** One action of a user's page: its POST handler, and its view's permissions. */
export interface UserAction {
  readonly handler: Handler
  readonly permissions: readonly Permission[]
}

/** Staff, and on the account: a staff or superuser account is changed by superusers only. */
const ON_ACCOUNT: readonly Permission[] = Object.freeze([...STAFF_ONLY, CHANGE_ACCOUNT])

/**
 * A POST action on the user of the path: the user, the view's object permissions on them
 * (`ON_ACCOUNT`, or `permissions`), then `act`, which answers where to go (`?done=`) or a page.
 */
function userAction(options: ResolvedAdminOptions, act: (user: StoredUser, ctx: RequestContext, staff: StaffRequest) => Promise<string | ApiResponse>, permissions = ON_ACCOUNT): UserAction {
  const handler = staffPage(options, async (ctx, staff) => {
    const found = await pathUser(ctx, staff, options)
    if ('status' in found) return found
    await checkObjectPermissions(ctx, found)
    const outcome = await act(found, ctx, staff)
    return typeof outcome === 'string' ? redirect(`${userPath(options, found.id)}?done=${outcome}`, 303) : outcome
  })
  return { handler, permissions }
}

/** Every POST action of a user's page, by route suffix. */
export function userActions(options: ResolvedAdminOptions): Readonly<Record<string, UserAction>> {
  const actions: Record<string, UserAction> = {
    'active/': userAction(options, async (user, ctx, staff) => {
      const value = formField(await ctx.request.body(), 'is_active')
      // Only the form's own values: a missing or other value changes nothing.
      if (value !== '0' && value !== '1') return page(staff, user.username, '<p class="message error">is_active must be 0 or 1.</p>', 400)
      const isActive = value === '1'
      await options.users.setActive(user.id, isActive)
      return isActive ? 'activated' : 'deactivated'
    }),
    'password/': userAction(options, async (user, ctx, staff) => {
      const data = await ctx.request.body()
      const { password, errors } = passwordPair(data, false)
      // Django's AdminPasswordChangeForm: the rules run with the user whose password it is.
      if (password !== null) errors.push(...(await passwordProblems(options, password, user)))
      if (password === null || errors.length > 0) {
        return page(staff, user.username, `${errors.map((e) => `<p class="message error">${h(e)}</p>`).join('')}<p><a href="${h(userPath(options, user.id))}">Back to ${h(user.username)}</a></p>`, 400)
      }
      await options.users.setPassword(user.id, password)
      // The user's sessions end with the change (their session auth hash moved on); a staff
      // member changing their own keeps this one, as Django's admin does.
      if (user.id === staff.user.id) await updateSessionAuthHash({ sessions: options.sessions, users: options.users }, ctx.request.cookie(options.session.cookieName) ?? '')
      // Refresh tokens outlive a password change unless the API checks the password hash in them
      // (`checkRevokeToken`); the form offers to blacklist them with it.
      const blacklistAll = options.jwtBlacklist?.blacklistAllForUser
      if (blacklistAll !== undefined && formField(data, 'blacklist_jwt') !== '') {
        await blacklistAll.call(options.jwtBlacklist, user.id)
        return 'password-jwt'
      }
      return 'password'
    }),
  }
  const { sessions } = options
  if (sessions.deleteForUser !== undefined) {
    const endAll = sessions.deleteForUser.bind(sessions)
    actions['sessions/end/'] = userAction(options, async (user) => {
      await endAll(user.id)
      return 'sessions'
    })
  }
  const tokens = options.tokens
  if (tokens !== undefined) {
    actions['token/'] = userAction(
      options,
      async (user, ctx, staff) => {
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
      },
      // A key shown is the account: another user's only to a superuser.
      [...ON_ACCOUNT, REVEAL_KEY],
    )
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
  const blacklistAll = options.jwtBlacklist?.blacklistAllForUser?.bind(options.jwtBlacklist)
  if (blacklistAll !== undefined) {
    actions['jwt/blacklist-all/'] = userAction(options, async (user) => ((await blacklistAll(user.id)) > 0 ? 'jwt-blacklisted' : 'jwt-none'))
  }
  return actions
}
