import { bytesToBase64Url } from '../core/encoding/base64.js'
import { hmacSha256 } from './hmac-sha256.js'

/**
 * Django's `get_session_auth_hash`: an HMAC-SHA256 of the stored password hash (never of the
 * password), so it changes whenever the password does, and says nothing about it. The stored
 * hash carries a random salt, so the value cannot be guessed from the password either.
 */
export function sessionAuthHashOf(storedPasswordHash: string): string {
  return bytesToBase64Url(hmacSha256('gatehouse.session-auth-hash', storedPasswordHash))
}
