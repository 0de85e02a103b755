import { createHmac } from 'node:crypto'

/**
 * Django's `get_session_auth_hash`: an HMAC-SHA256 of the stored password hash (never of the
 * password), so it changes whenever the password does, and says nothing about it. The stored
 * hash carries a random salt, so the value cannot be guessed from the password either.
 */
export function sessionAuthHashOf(storedPasswordHash: string): string {
  return createHmac('sha256', 'gatehouse.session-auth-hash').update(storedPasswordHash).digest('base64url')
}
