// The portable path (Web Crypto and @noble/hashes, what edge runtimes without `node:crypto` run)
// against Node's own crypto, called as the library called it before it had a portable path: a
// hash stored by either verifies on the other, and digests, MACs and derived keys are the same bytes.
import { Buffer } from 'node:buffer'
import * as nodeCrypto from 'node:crypto'
import fc from 'fast-check'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { anyText, hex } from '../../test/helpers/unicode-text.js'

type Modules = {
  readonly passwords: typeof import('./passwords.js')
  readonly sha256: typeof import('./sha256.js')
  readonly hmac: typeof import('./hmac-sha256.js')
  readonly keys: typeof import('./key-derivation.js')
  readonly native: typeof import('./native-crypto.js')
}

/** The crypto modules loaded afresh, with `node:crypto` hidden from them (as on an edge runtime). */
async function loadPortable(): Promise<Modules> {
  vi.resetModules()
  vi.doMock('./native-crypto.js', () => ({ nativeCrypto: undefined }))
  try {
    return {
      passwords: await import('./passwords.js'),
      sha256: await import('./sha256.js'),
      hmac: await import('./hmac-sha256.js'),
      keys: await import('./key-derivation.js'),
      native: await import('./native-crypto.js'),
    }
  } finally {
    vi.doUnmock('./native-crypto.js')
    vi.resetModules()
  }
}

// Before the portable path: the library's own formula over node:crypto, kept here as the oracle.
const FAST = { N: 1024, r: 8, p: 1 }
function nodeScryptHash(password: string, params = FAST): string {
  const salt = nodeCrypto.randomBytes(16)
  const maxmem = 128 * params.r * (params.N + 2) + 128 * params.r * params.p + 64 * 1024
  const hash = nodeCrypto.scryptSync(password.normalize('NFKC'), salt, 32, { ...params, maxmem })
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$')
}
function nodeScryptVerify(password: string, encoded: string): boolean {
  const [, n, r, p, salt = '', hash = ''] = encoded.split('$')
  const params = { N: Number(n), r: Number(r), p: Number(p) }
  const expected = Buffer.from(hash, 'base64')
  const maxmem = 128 * params.r * (params.N + 2) + 128 * params.r * params.p + 64 * 1024
  const actual = nodeCrypto.scryptSync(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, { ...params, maxmem })
  return nodeCrypto.timingSafeEqual(actual, expected)
}
function nodePbkdf2Hash(password: string, salt: string, iterations: number): string {
  return `pbkdf2_sha256$${iterations}$${salt}$${nodeCrypto.pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('base64')}`
}
function nodePbkdf2Verify(password: string, encoded: string): boolean {
  const [, iterations, salt = '', hash = ''] = encoded.split('$')
  const expected = Buffer.from(hash, 'base64')
  return nodeCrypto.timingSafeEqual(nodeCrypto.pbkdf2Sync(password, salt, Number(iterations), expected.length, 'sha256'), expected)
}

/** Passwords worth checking: empty, non-ASCII, needing NFKC, a lone surrogate. */
const PASSWORDS = ['', 'correct horse battery staple', 'pässwörd:x', 'pa\u0308ss', '\ufb01', '\ud800lone', '😀 emoji']

let portable: Modules
beforeAll(async () => {
  portable = await loadPortable()
})

describe('the portable path is really in use', () => {
  it('sees no node:crypto', () => {
    expect(portable.native.nativeCrypto).toBeUndefined()
  })
})

describe('scrypt hashes move between Node and the portable path', () => {
  it.each(PASSWORDS)('a hash Node made verifies on the portable path, and only for its password: %j', async (password) => {
    const encoded = nodeScryptHash(password)
    expect(await portable.passwords.verifyPassword(password, encoded)).toBe(true)
    expect(await portable.passwords.verifyPassword(`${password}x`, encoded)).toBe(false)
  })

  it.each(PASSWORDS)('a hash the portable path made verifies with Node: %j', async (password) => {
    const encoded = await portable.passwords.hashPassword(password, FAST)
    expect(encoded).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/)
    expect(nodeScryptVerify(password, encoded)).toBe(true)
    expect(nodeScryptVerify(`${password}x`, encoded)).toBe(false)
  })

  it('the same salt and parameters give the same key on both (random passwords, salts and costs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyText(24),
        fc.uint8Array({ minLength: 0, maxLength: 24 }),
        fc.constantFrom(2, 16, 256),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 64 }),
        async (password, salt, N, r, p, keyLength) => {
          const maxmem = 1024 * 1024 * 64
          const ours = await portable.keys.portableScrypt(password, salt, { N, r, p, keyLength, maxmem })
          expect(hex(ours)).toBe(hex(nodeCrypto.scryptSync(password, salt, keyLength, { N, r, p, maxmem })))
        },
      ),
      { numRuns: 40 },
    )
  })

  it('parameters Node refuses are refused (N not a power of two): a corrupt hash is false, not a throw', async () => {
    expect(await portable.passwords.verifyPassword('x', 'scrypt$1000$8$1$c2FsdA==$aGFzaA==')).toBe(false)
    expect(await portable.passwords.verifyPassword('x', 'scrypt$1$8$1$c2FsdA==$aGFzaA==')).toBe(false)
  })
})

describe("Django's PBKDF2 hashes move between Node and the portable path", () => {
  // Made by Debian's Django 3.2 (as in passwords.test.ts).
  it.each([
    ['alice-pass-1', 'pbkdf2_sha256$260000$abcdefgh12345678$DSJDSO2UM7aRFCYT9+KgFziG067mfJaGxkUZOiYhRE0='],
    ['pässwörd:x', 'pbkdf2_sha256$260000$Zx9salt0123456$wKqqujwOi/s7oAVo5ZhDUL7eHuWEAwUpnfdawFgDUHo='],
  ])("Django's hash of %j verifies on the portable path", async (password, encoded) => {
    expect(await portable.passwords.verifyPassword(password, encoded)).toBe(true)
    expect(await portable.passwords.verifyPassword(`${password}x`, encoded)).toBe(false)
  })

  it.each(PASSWORDS)('a hash Node made verifies on the portable path, and the portable key verifies with Node: %j', async (password) => {
    const encoded = nodePbkdf2Hash(password, 'sält-1234', 1000)
    expect(await portable.passwords.verifyPassword(password, encoded)).toBe(true)
    expect(await portable.passwords.verifyPassword(`${password}x`, encoded)).toBe(false)
    const key = await portable.keys.portablePbkdf2Sha256(password, 'sält-1234', 1000, 32)
    expect(nodePbkdf2Verify(password, `pbkdf2_sha256$1000$sält-1234$${Buffer.from(key).toString('base64')}`)).toBe(true)
  })

  it('the same key as Node for random passwords, salts, rounds and lengths', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyText(24),
        anyText(24),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 80 }),
        async (password, salt, iterations, keyLength) => {
          const ours = await portable.keys.portablePbkdf2Sha256(password, salt, iterations, keyLength)
          expect(hex(ours)).toBe(hex(nodeCrypto.pbkdf2Sync(password, salt, iterations, keyLength, 'sha256')))
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('SHA-256 and HMAC-SHA256 on the portable path', () => {
  it('SHA-256 of any text or bytes is what node:crypto gives', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(100), fc.uint8Array({ maxLength: 100 })), (data) => {
        const expected = nodeCrypto.createHash('sha256').update(data).digest()
        expect(portable.sha256.sha256Hex(data)).toBe(expected.toString('hex'))
        expect(portable.sha256.sha256Base64(data)).toBe(expected.toString('base64'))
      }),
      { numRuns: 500 },
    )
  })

  it('HMAC-SHA256 with any text or byte key is what node:crypto gives', () => {
    fc.assert(
      fc.property(
        fc.oneof(anyText(100), fc.uint8Array({ maxLength: 100 })),
        anyText(100),
        (key, message) => {
          const expected = nodeCrypto.createHmac('sha256', key).update(message).digest('hex')
          expect(hex(portable.hmac.hmacSha256(key, message))).toBe(expected)
        },
      ),
      { numRuns: 500 },
    )
  })
})
