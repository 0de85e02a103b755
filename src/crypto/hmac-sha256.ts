import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { utf8Encode } from '../core/encoding/text.js'
import { nativeCrypto } from './native-crypto.js'

/**
 * HMAC-SHA256, synchronous (cursors are signed and checked on the request path, and Web
 * Crypto's `sign` is async only). A text key or message is taken as its UTF-8 bytes.
 */
export function hmacSha256(key: string | Uint8Array, message: string | Uint8Array): Uint8Array {
  if (nativeCrypto !== undefined) return nativeCrypto.createHmac('sha256', key).update(message).digest()
  return hmac(sha256, typeof key === 'string' ? utf8Encode(key) : key, typeof message === 'string' ? utf8Encode(message) : message)
}
