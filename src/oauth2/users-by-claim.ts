import type { MaybePromise } from '../core/maybe-promise.js'
import type { User } from '../core/user.js'
import type { UserStore } from '../stores/user-store.js'
import type { OAuth2AccessToken } from './access-token.js'

/** Options of `usersByClaim`. */
export interface UsersByClaimOptions {
  /**
   * Let a token act for a staff or superuser account. Off, such a token is refused (401, as for
   * an unknown account, so a client cannot tell which names are privileged): whoever controls
   * the claim at the provider would otherwise hold your admin rights. Turn it on only when the
   * claim is one the provider never lets a user choose (`sub`, Entra ID's `oid`).
   * @default false
   */
  readonly allowPrivileged?: boolean
}

/**
 * A `user` option for `OAuth2Authentication` that maps a token to an account of your user
 * store: the user whose username is the token's `claim` (`sub` by default). A token without the
 * claim (nothing else is tried in its place, not `client_id`), naming no user, or naming an
 * inactive one is refused (401).
 *
 * `sub` is the safe key: the provider assigns it and never reuses it. `email` and
 * `preferred_username` are often editable by the user at the provider (Microsoft's nOAuth
 * advisory: never authorise on them), so by `email` the token must also say
 * `email_verified: true`; and a staff or superuser account is never mapped to unless
 * `allowPrivileged` is set.
 *
 * @example
 * new OAuth2Authentication({ issuer, audience, user: usersByClaim(users) })
 */
export function usersByClaim(users: Pick<UserStore, 'findByUsername'>, claim = 'sub', options: UsersByClaimOptions = {}): (token: OAuth2AccessToken) => MaybePromise<User | null> {
  const allowPrivileged = options.allowPrivileged === true
  return async (token) => {
    const name = token.claims[claim]
    if (typeof name !== 'string' || name === '') return null
    // An address the provider has not verified is whatever the user typed into their profile.
    if (claim === 'email' && token.claims['email_verified'] !== true) return null
    const user = await users.findByUsername(name)
    if (user === null) return null
    return allowPrivileged || (!user.isStaff && user.isSuperuser !== true) ? user : null
  }
}
