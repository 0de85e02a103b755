import { sha256Bytes } from './sha256.js'

/**
 * Compares two byte strings of the same length in time that depends on the length only:
 * every byte is visited and the differences are OR-ed, with no early exit. Unequal
 * lengths answer `false` at once, so callers compare values of a public length (digests,
 * MAC tags).
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!
  return difference === 0
}

/** `equalBytes` for texts of a public length (hex digests), character by character. */
export function equalDigests(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/**
 * Compares two secrets in constant time. Both sides are hashed first so that
 * neither the content nor the length of the secret leaks through timing.
 */
export function timingSafeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  return equalBytes(sha256Bytes(a), sha256Bytes(b))
}
