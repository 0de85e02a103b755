import type { UserId } from '../core/user.js'
import { timingSafeEqual } from '../crypto/timing-safe-equal.js'
import type { SessionStore } from '../stores/session-store.js'
import type { UserStore } from '../stores/user-store.js'

/**
 * The session data key that holds the user's session auth hash at login (Django's
 * `HASH_SESSION_KEY`). A session whose value no longer matches `UserStore.sessionAuthHash`
 * (the password changed since) is not a login any more.
 */
export const SESSION_AUTH_HASH_KEY = '_auth_user_hash'

/** True when `data` holds `expected` under `SESSION_AUTH_HASH_KEY`, compared in constant time. */
export function sessionAuthHashMatches(data: Readonly<Record<string, unknown>>, expected: string): boolean {
  const stored = data[SESSION_AUTH_HASH_KEY]
  return typeof stored === 'string' && timingSafeEqual(stored, expected)
}

/** Options for `updateSessionAuthHash`. */
export interface UpdateSessionAuthHashOptions {
  readonly sessions: Pick<SessionStore, 'get' | 'save'>
  readonly users: Pick<UserStore, 'sessionAuthHash'>
}

/**
 * Django's `update_session_auth_hash`: after your own view changed the requester's password
 * (`users.setPassword`), call this with the requester's session key so that *this* session
 * stays logged in, while every other session of the user ends.
 *
 * @returns false when there is no such live session, or it is anonymous, or the user store
 *   keeps no session auth hash (then nothing needs updating).
 *
 * @example
 * await users.setPassword(ctx.user.id, newPassword)
 * await updateSessionAuthHash({ sessions, users }, ctx.request.cookie('sessionid') ?? '')
 */
export async function updateSessionAuthHash(options: UpdateSessionAuthHashOptions, sessionKey: string): Promise<boolean> {
  const { sessions, users } = options
  if (users.sessionAuthHash === undefined || sessionKey === '') return false
  const session = await sessions.get(sessionKey)
  if (session === null || session.userId === null) return false
  const hash = await users.sessionAuthHash(session.userId)
  if (hash === null) return false
  await sessions.save(sessionKey, { ...session, data: { ...session.data, [SESSION_AUTH_HASH_KEY]: hash } })
  return true
}

/** The session data a login starts with: the user's session auth hash, when the store keeps one. */
export async function loginSessionData(users: Pick<UserStore, 'sessionAuthHash'>, userId: UserId): Promise<Record<string, unknown>> {
  const hash = users.sessionAuthHash === undefined ? null : await users.sessionAuthHash(userId)
  return hash === null ? {} : { [SESSION_AUTH_HASH_KEY]: hash }
}
