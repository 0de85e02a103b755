import type { MaybePromise } from '../core/maybe-promise.js'
import type { User } from '../core/user.js'
import type { UserStore } from '../stores/user-store.js'
import type { OAuth2AccessToken } from './access-token.js'

/**
 * A `user` option for `OAuth2Authentication` that maps a token to an account of your user
 * store: the user whose username is the token's `claim` (`sub` by default; `email` or
 * `preferred_username` when your accounts are named so). A token without the claim, or naming
 * no user, is refused (401); an inactive user too.
 *
 * @example
 * new OAuth2Authentication({ issuer, audience, user: usersByClaim(users, 'email') })
 */
export function usersByClaim(users: Pick<UserStore, 'findByUsername'>, claim = 'sub'): (token: OAuth2AccessToken) => MaybePromise<User | null> {
  return (token) => {
    const name = token.claims[claim]
    return typeof name === 'string' && name !== '' ? users.findByUsername(name) : null
  }
}
