import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToBase64 } from '../core/encoding/base64.js'
import { bytesToHex } from '../core/encoding/hex.js'
import { utf8Encode } from '../core/encoding/text.js'
import { nativeCrypto } from './native-crypto.js'

// Synchronous on purpose: token lookups and cache keys hash on the request path, and Web
// Crypto's digest is async only. Text is hashed as its UTF-8 bytes, as Node's `update(text)`.

/** SHA-256 of a text's or a byte string's bytes. */
export function sha256Bytes(data: string | Uint8Array): Uint8Array {
  if (nativeCrypto !== undefined) return nativeCrypto.createHash('sha256').update(data).digest()
  return sha256(typeof data === 'string' ? utf8Encode(data) : data)
}

/** SHA-256 as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  if (nativeCrypto !== undefined) return nativeCrypto.createHash('sha256').update(data).digest('hex')
  return bytesToHex(sha256Bytes(data))
}

/** SHA-256 as standard base64 (a CSP source hash). */
export function sha256Base64(data: string | Uint8Array): string {
  return bytesToBase64(sha256Bytes(data))
}
