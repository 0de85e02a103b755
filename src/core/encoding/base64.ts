// Base64 without `Buffer`, which edge runtimes lack (and Node 20 has no Uint8Array.toBase64).
// Python's lenient decoder, which DRF cursors and Basic credentials need, is a different
// thing: `lenientBase64Decode` in python-base64.ts.
import { nativeBuffer } from './native-buffer.js'

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** Both alphabets decode, as Node's `Buffer.from(text, 'base64')` and `'base64url'` both do. */
const DECODE = new Int8Array(128).fill(-1)
for (let i = 0; i < 64; i++) {
  DECODE[STANDARD.charCodeAt(i)] = i
  DECODE[URL_SAFE.charCodeAt(i)] = i
}

function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = ''
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out += alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + alphabet[n & 63]!
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = bytes[i]! << 16
    out += alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + (pad ? '==' : '')
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8)
    out += alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + (pad ? '=' : '')
  }
  return out
}

/** Standard base64 with padding, as `Buffer.prototype.toString('base64')`. */
export function bytesToBase64(bytes: Uint8Array): string {
  if (nativeBuffer !== undefined) return nativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
  return encode(bytes, STANDARD, true)
}

/** URL-safe base64 without padding, as `Buffer.prototype.toString('base64url')`. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  if (nativeBuffer !== undefined) return nativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
  return encode(bytes, URL_SAFE, false)
}

/**
 * Decodes base64 or base64url the way Node's `Buffer.from(text, 'base64')` does: either
 * alphabet, characters outside it skipped, decoding stops at the first `=`, and a lone
 * trailing sextet (a length of 1 mod 4) is dropped. Never throws. Stored password hashes
 * are read with it, so a hash Node accepted still reads the same.
 */
export function base64ToBytes(text: string): Uint8Array {
  if (nativeBuffer !== undefined) return nativeBuffer.from(text, 'base64')
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3)
  let length = 0
  let bits = 0
  let count = 0
  for (let i = 0; i < text.length; i++) {
    // Node reads a character above U+00FF by its low byte (U+0141 counts as "A"): so does this.
    const code = text.charCodeAt(i) & 0xff
    if (code === 0x3d) break
    const value = code < 128 ? DECODE[code]! : -1
    if (value < 0) continue
    bits = (bits << 6) | value
    count++
    if (count === 4) {
      out[length++] = bits >> 16
      out[length++] = (bits >> 8) & 0xff
      out[length++] = bits & 0xff
      bits = 0
      count = 0
    }
  }
  if (count === 2) out[length++] = bits >> 4
  else if (count === 3) {
    out[length++] = bits >> 10
    out[length++] = (bits >> 2) & 0xff
  }
  return out.slice(0, length)
}
