import { pbkdf2Async } from '@noble/hashes/pbkdf2.js'
import { scryptAsync } from '@noble/hashes/scrypt.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { utf8Encode } from '../core/encoding/text.js'
import { nativeCrypto } from './native-crypto.js'

/** scrypt's inputs besides the password and salt (RFC 7914), and the memory it may take. */
export interface ScryptInput {
  readonly N: number
  readonly r: number
  readonly p: number
  readonly keyLength: number
  readonly maxmem: number
}

/** A node:crypto callback's error argument means success: Node passes `null`, Bun `undefined`. */
function succeeded(error: Error | null | undefined): boolean {
  return error === null || error === undefined
}

/**
 * scrypt over a text password (its UTF-8 bytes). Node's runs on libuv's thread pool; the
 * portable one (`@noble/hashes`) runs on the calling thread, yielding every few milliseconds.
 * Both give the same bytes. Rejects for parameters either refuses (N not a power of two).
 */
export function scrypt(password: string, salt: Uint8Array, input: ScryptInput): Promise<Uint8Array> {
  const native = nativeCrypto
  if (native === undefined) return portableScrypt(password, salt, input)
  const { N, r, p, keyLength, maxmem } = input
  return new Promise((resolve, reject) => {
    native.scrypt(password, salt, keyLength, { N, r, p, maxmem }, (error, key) => (succeeded(error) ? resolve(key) : reject(error)))
  })
}

/** scrypt in JavaScript, for runtimes without `node:crypto` (and for tests that compare the two). */
export function portableScrypt(password: string, salt: Uint8Array, input: ScryptInput): Promise<Uint8Array> {
  const { N, r, p, keyLength, maxmem } = input
  return scryptAsync(utf8Encode(password), salt, { N, r, p, dkLen: keyLength, maxmem })
}

/** PBKDF2-HMAC-SHA256 over a text password and salt (their UTF-8 bytes), as Django's hasher. */
export function pbkdf2Sha256(password: string, salt: string, iterations: number, keyLength: number): Promise<Uint8Array> {
  const native = nativeCrypto
  if (native === undefined) return portablePbkdf2Sha256(password, salt, iterations, keyLength)
  return new Promise((resolve, reject) => {
    native.pbkdf2(password, salt, iterations, keyLength, 'sha256', (error, key) => (succeeded(error) ? resolve(key) : reject(error)))
  })
}

/**
 * PBKDF2-HMAC-SHA256 through Web Crypto (native code on every runtime that has it), or in
 * JavaScript where `crypto.subtle` is missing or refuses the key (some engines reject an
 * empty password as a PBKDF2 key, which Django allows).
 */
export async function portablePbkdf2Sha256(password: string, salt: string, iterations: number, keyLength: number): Promise<Uint8Array> {
  const passwordBytes = utf8Encode(password)
  const saltBytes = utf8Encode(salt)
  const subtle = globalThis.crypto?.subtle as SubtleCrypto | undefined
  if (subtle !== undefined) {
    try {
      const key = await subtle.importKey('raw', passwordBytes, 'PBKDF2', false, ['deriveBits'])
      const bits = await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: saltBytes, iterations }, key, keyLength * 8)
      return new Uint8Array(bits)
    } catch {
      // Fall through to the JavaScript implementation, which accepts every input Node's does.
    }
  }
  return pbkdf2Async(sha256, passwordBytes, saltBytes, { c: iterations, dkLen: keyLength })
}
