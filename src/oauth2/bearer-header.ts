import { splitAuthorizationHeader } from '../core/request/authorization-header.js'

/**
 * The longest access token accepted, in characters. Identity providers' JWTs run to a few
 * kilobytes (Entra ID's with many groups ~6 KB); anything longer is refused before parsing.
 */
export const MAX_ACCESS_TOKEN_LENGTH = 16_384

/** RFC 6750's `b64token`: the characters a Bearer credential may hold, `=` padding last. Linear: `=` is not in the class. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

/** What an `Authorization` header says to a Bearer scheme. */
export type BearerCredential =
  /** No header, or another scheme's (`Basic …`, `Token …`): not this scheme's business. */
  | { readonly kind: 'absent' }
  /** A `Bearer` header that holds no usable token; `reason` is safe to show the client. */
  | { readonly kind: 'malformed'; readonly reason: string }
  | { readonly kind: 'token'; readonly token: string }

const ABSENT: BearerCredential = Object.freeze({ kind: 'absent' })

/**
 * Reads `Authorization: Bearer <token>` (RFC 6750 §2.1): the scheme name case-insensitive
 * (RFC 9110 §11.1), the parts split as DRF splits the header; exactly one credential, of
 * `b64token` characters, at most `MAX_ACCESS_TOKEN_LENGTH` long. Never throws.
 */
export function parseBearerAuthorization(header: string | null): BearerCredential {
  const parts = splitAuthorizationHeader(header)
  if (parts.length === 0 || parts[0]?.toLowerCase() !== 'bearer') return ABSENT
  if (parts.length !== 2) return { kind: 'malformed', reason: 'Invalid Authorization header: expected Bearer and one access token.' }
  const token = parts[1] as string
  if (token.length > MAX_ACCESS_TOKEN_LENGTH) return { kind: 'malformed', reason: 'The access token is too long.' }
  if (!B64TOKEN.test(token)) return { kind: 'malformed', reason: 'The access token holds characters a Bearer token cannot.' }
  return { kind: 'token', token }
}
