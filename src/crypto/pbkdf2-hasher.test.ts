import { describe, expect, it } from 'vitest'
import { hashPassword } from './passwords.js'
import { defaultPasswordHasher, hasNativeScrypt, pbkdf2Hasher } from './pbkdf2-hasher.js'

/** Few iterations keep the suite fast; the count is in the hash, and the code path is the same. */
const CHEAP = { iterations: 1000 }

describe('pbkdf2Hasher', () => {
  it("hashes in Django's format (22-character alphanumeric salt, 32-byte key) and verifies in constant form", async () => {
    const hasher = pbkdf2Hasher(CHEAP)
    const encoded = await hasher.hash('correct horse')
    expect(encoded).toMatch(/^pbkdf2_sha256\$1000\$[A-Za-z0-9]{22}\$[A-Za-z0-9+/]{43}=$/)
    expect(await hasher.verify('correct horse', encoded)).toBe(true)
    expect(await hasher.verify('correct horse ', encoded)).toBe(false)
    expect(await hasher.verify('', encoded)).toBe(false)
    expect(await hasher.hash('correct horse')).not.toBe(encoded)
  })

  it("a known Django hash (Django's own test vector) verifies", async () => {
    // django/tests/auth_tests/test_hashers.py, test_pbkdf2 at 260,000 iterations (Django 3.2).
    const django = 'pbkdf2_sha256$260000$seasalt$YlZ2Vggtqdc61YjArZuoApoBh9JNGYoDRBUGu6tcJQo='
    expect(await pbkdf2Hasher(CHEAP).verify('lètmein', django)).toBe(true)
    expect(await pbkdf2Hasher(CHEAP).verify('letmein', django)).toBe(false)
  })

  it("defaults to Django 5.2's iteration count, and asks to rehash other counts only (not scrypt)", async () => {
    const hasher = pbkdf2Hasher()
    expect(hasher.needsRehash('pbkdf2_sha256$1000000$salt$hash')).toBe(false)
    expect(hasher.needsRehash('pbkdf2_sha256$870000$salt$hash')).toBe(true)
    expect(hasher.needsRehash('scrypt$131072$8$1$c2FsdA==$aGFzaA==')).toBe(false)
    expect(pbkdf2Hasher(CHEAP).needsRehash('pbkdf2_sha256$1000000$salt$hash')).toBe(true)
    expect(() => pbkdf2Hasher({ iterations: 0 })).toThrow(RangeError)
  })

  it('verifies scrypt hashes within scryptMaxMemory, and rejects with a clear error beyond it', async () => {
    const encoded = await hashPassword('pw', { N: 2 ** 12, r: 8, p: 1 })
    expect(await pbkdf2Hasher(CHEAP).verify('pw', encoded)).toBe(true)
    expect(await pbkdf2Hasher(CHEAP).verify('px', encoded)).toBe(false)
    const small = pbkdf2Hasher({ ...CHEAP, scryptMaxMemory: 2 ** 20 })
    await expect(small.verify('pw', encoded)).rejects.toThrow(/needs 5 MiB to check, more than this runtime allows \(pbkdf2Hasher's scryptMaxMemory: 1 MiB\)/)
    // Unreadable hashes are still "no match", not an error.
    expect(await small.verify('pw', 'scrypt$x$8$1$a$b')).toBe(false)
    expect(await small.verify('pw', '!unusable')).toBe(false)
  })

  it('is the default where node:crypto has no scrypt (the web-standard project), scrypt elsewhere', () => {
    const native = typeof (globalThis as { process?: { getBuiltinModule?: unknown } }).process?.getBuiltinModule === 'function'
    expect(hasNativeScrypt()).toBe(native)
    // The scrypt hasher wants every PBKDF2 hash rehashed; the PBKDF2 one not one at its own count.
    expect(defaultPasswordHasher().needsRehash('pbkdf2_sha256$1000000$salt$hash')).toBe(native)
  })
})
