import { bytesToHex } from '../core/encoding/hex.js'

/** Web Crypto refuses more than 65,536 bytes per call. */
const MAX_RANDOM_CHUNK = 65_536

/** `length` bytes from the CSPRNG (Web Crypto's `getRandomValues`, on every runtime). */
export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length)
  for (let i = 0; i < length; i += MAX_RANDOM_CHUNK) {
    globalThis.crypto.getRandomValues(out.subarray(i, i + MAX_RANDOM_CHUNK))
  }
  return out
}

/** A random version 4 UUID (`crypto.randomUUID`, on every runtime). */
export function randomUUID(): string {
  return globalThis.crypto.randomUUID()
}

/** DRF's token key format: 20 bytes from the CSPRNG as 40 lowercase hex characters. */
export function generateTokenKey(): string {
  return bytesToHex(randomBytes(20))
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** A random string over `[a-zA-Z0-9]` from the CSPRNG, without modulo bias. */
export function randomAlphanumeric(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALNUM[byte % 62]
    }
  }
  return out
}
