/**
 * simplejwt's `TokenError`: a token that is malformed, badly signed, expired, of the wrong
 * type or otherwise unusable. `message` is simplejwt 5.2.2's user-facing text
 * ("Token is invalid or expired", "Token has wrong type", ...); views and schemes put it on
 * the wire, so it never holds the token or the key.
 */
export class TokenError extends Error {
  override readonly name = 'TokenError'
}

/** simplejwt's messages, word for word (5.2.2; later versions reword some). */
export const TOKEN_MESSAGES = Object.freeze({
  invalid: 'Token is invalid or expired',
  noId: 'Token has no id',
  noType: 'Token has no type',
  wrongType: 'Token has wrong type',
  blacklisted: 'Token is blacklisted',
  noExp: "Token has no 'exp' claim",
  expired: "Token 'exp' claim has expired",
})
