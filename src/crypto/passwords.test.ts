import { describe, expect, it } from 'vitest'
import { DEFAULT_SCRYPT, dummyHash, hashPassword, verifyPassword, verifyPasswordUniform } from './passwords.js'
import { generateTokenKey, randomAlphanumeric } from './random.js'
import { timingSafeEqual } from './timing-safe-equal.js'

// Cheap parameters keep the suite fast; the format and code path are the same.
const FAST = { N: 1024, r: 8, p: 1 }

describe('scrypt passwords', () => {
  it('round-trips, and a wrong password is false', async () => {
    const hash = await hashPassword('correct horse', FAST)
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
    expect(await verifyPassword('correct horse', hash)).toBe(true)
    expect(await verifyPassword('correct horse ', hash)).toBe(false)
    expect(await verifyPassword('', hash)).toBe(false)
  })

  it('salts: two hashes of one password differ and both verify', async () => {
    const [a, b] = await Promise.all([hashPassword('pw', FAST), hashPassword('pw', FAST)])
    expect(a).not.toBe(b)
    expect(await verifyPassword('pw', a)).toBe(true)
    expect(await verifyPassword('pw', b)).toBe(true)
  })

  it('normalises Unicode (NFKC): composed and decomposed forms are one password', async () => {
    const hash = await hashPassword('p\u00e4ss', FAST)
    expect(await verifyPassword('pa\u0308ss', hash)).toBe(true)
  })

  it("default parameters are OWASP's (N=2^17, r=8, p=1) and work within Node's memory cap", async () => {
    expect(DEFAULT_SCRYPT).toEqual({ N: 131072, r: 8, p: 1 })
    const hash = await hashPassword('default')
    expect(hash.startsWith('scrypt$131072$8$1$')).toBe(true)
    expect(await verifyPassword('default', hash)).toBe(true)
  })

  it('a dummy hash is well formed and matches nothing', async () => {
    const dummy = dummyHash(FAST)
    expect(dummy).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{44}$/)
    expect(dummyHash(FAST)).not.toBe(dummy)
    expect(await verifyPassword('', dummy)).toBe(false)
  })
})

describe('verifyPasswordUniform', () => {
  const DJANGO = 'pbkdf2_sha256$260000$abcdefgh12345678$DSJDSO2UM7aRFCYT9+KgFziG067mfJaGxkUZOiYhRE0='
  it('checks current, weaker and Django hashes, and never matches a missing or unusable one', async () => {
    const current = await hashPassword('pw', FAST)
    const weaker = await hashPassword('pw', { N: 512, r: 8, p: 1 })
    expect(await verifyPasswordUniform('pw', current, FAST)).toBe(true)
    expect(await verifyPasswordUniform('pw', weaker, FAST)).toBe(true)
    expect(await verifyPasswordUniform('pwx', weaker, FAST)).toBe(false)
    expect(await verifyPasswordUniform('alice-pass-1', DJANGO, FAST)).toBe(true)
    expect(await verifyPasswordUniform('alice-pass-2', DJANGO, FAST)).toBe(false)
    expect(await verifyPasswordUniform('pw', null, FAST)).toBe(false)
    expect(await verifyPasswordUniform('!', '!', FAST)).toBe(false)
    expect(await verifyPasswordUniform('', '', FAST)).toBe(false)
  })
})

describe("Django's pbkdf2_sha256 hashes", () => {
  // Made by Debian's Django 3.2: make_password(password, salt=...) with settings.configure().
  it.each([
    ['alice-pass-1', 'pbkdf2_sha256$260000$abcdefgh12345678$DSJDSO2UM7aRFCYT9+KgFziG067mfJaGxkUZOiYhRE0='],
    ['pässwörd:x', 'pbkdf2_sha256$260000$Zx9salt0123456$wKqqujwOi/s7oAVo5ZhDUL7eHuWEAwUpnfdawFgDUHo='],
  ])('verifies %j', async (password, hash) => {
    expect(await verifyPassword(password, hash)).toBe(true)
    expect(await verifyPassword(`${password}x`, hash)).toBe(false)
  })
})

describe('malformed hashes are false, never a throw', () => {
  it.each([
    '',
    '!',
    '!unusable',
    'plaintext',
    'md5$abc$def',
    'scrypt$',
    'scrypt$1024$8$1$c2FsdA==',
    'scrypt$1024$8$1$c2FsdA==$',
    'scrypt$0$8$1$c2FsdA==$aGFzaA==',
    'scrypt$1000$8$1$c2FsdA==$aGFzaA==', // N not a power of two: Node refuses
    'scrypt$1073741824$8$1$c2FsdA==$aGFzaA==', // absurd memory: refused before Node is asked
    'scrypt$2097152$8$1$c2FsdA==$aGFzaA==', // 2 GiB: over the 1 GiB cap
    'scrypt$x$8$1$c2FsdA==$aGFzaA==',
    'scrypt$1024$8$1$c2FsdA==$aGFzaA==$extra',
    'pbkdf2_sha256$',
    'pbkdf2_sha256$0$salt$aGFzaA==',
    'pbkdf2_sha256$-5$salt$aGFzaA==',
    'pbkdf2_sha256$abc$salt$aGFzaA==',
    'pbkdf2_sha256$99999999999$salt$aGFzaA==',
    'pbkdf2_sha256$1000$salt$',
    'pbkdf2_sha256$1000$salt',
  ])('%j', async (hash) => {
    await expect(verifyPassword('anything', hash)).resolves.toBe(false)
  })
})

describe('random values', () => {
  it('token keys are 40 lowercase hex and distinct', () => {
    const keys = new Set(Array.from({ length: 200 }, generateTokenKey))
    expect(keys.size).toBe(200)
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{40}$/)
  })

  it('randomAlphanumeric has the asked length and alphabet, and uses the whole alphabet', () => {
    const text = randomAlphanumeric(5000)
    expect(text).toMatch(/^[a-zA-Z0-9]{5000}$/)
    expect(new Set(text).size).toBe(62)
  })
})

describe('timingSafeEqual', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'abcd', false],
    ['', '', true],
    ['', 'a', false],
  ])('%j vs %j → %s', (a, b, expected) => {
    expect(timingSafeEqual(a, b)).toBe(expected)
    expect(timingSafeEqual(new TextEncoder().encode(a), new TextEncoder().encode(b))).toBe(expected)
  })
})
