import { describe, expect, it } from 'vitest'
import { paddedVerifier, scryptHasher, type PasswordHasher } from './password-hasher.js'

const FAST = { N: 1024, r: 8, p: 1 }

/** A hasher that records its calls: `plain$<password>` hashes, `old$…` ones need a rehash. */
function recordingHasher(): PasswordHasher & { readonly calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    async hash(password) {
      calls.push('hash')
      return `plain$${password}`
    },
    async verify(password, encoded) {
      calls.push(`verify ${encoded.startsWith('plain$dummy') ? 'dummy' : encoded}`)
      return encoded === `plain$${password}` || encoded === `old$${password}`
    },
    needsRehash: (encoded) => encoded.startsWith('old$'),
  }
}

describe('scryptHasher', () => {
  it('hashes in the scrypt format at its cost, verifies, and wants weaker hashes rehashed', async () => {
    const hasher = scryptHasher(FAST)
    const encoded = await hasher.hash('pw')
    expect(encoded.startsWith('scrypt$1024$8$1$')).toBe(true)
    expect(await hasher.verify('pw', encoded)).toBe(true)
    expect(await hasher.verify('px', encoded)).toBe(false)
    expect(hasher.needsRehash(encoded)).toBe(false)
    expect(hasher.needsRehash(await scryptHasher({ N: 512, r: 8, p: 1 }).hash('pw'))).toBe(true)
    expect(await hasher.verify('pw', 'not a hash')).toBe(false)
  })
})

describe('paddedVerifier', () => {
  it('checks a current hash once, and only that', async () => {
    const hasher = recordingHasher()
    const verify = paddedVerifier(hasher)
    expect(await verify('pw', 'plain$pw')).toBe(true)
    expect(await verify('px', 'plain$pw')).toBe(false)
    expect(hasher.calls).toEqual(['verify plain$pw', 'verify plain$pw'])
  })

  it('no account or an unusable hash: one check against a dummy hash, made once and kept; never a match', async () => {
    const hasher = {
      ...recordingHasher(),
      hash: async (password: string) => `plain$dummy-${password}`,
    }
    const verify = paddedVerifier(hasher)
    expect(await verify('pw', null)).toBe(false)
    expect(await verify('!', '!')).toBe(false)
    expect(await verify('', '')).toBe(false)
    expect(hasher.calls).toEqual(['verify dummy', 'verify dummy', 'verify dummy'])
  })

  it('makes the dummy hash once across calls', async () => {
    const hasher = recordingHasher()
    const verify = paddedVerifier(hasher)
    await Promise.all([verify('a', null), verify('b', null)])
    await verify('c', '!x')
    expect(hasher.calls.filter((call) => call === 'hash')).toHaveLength(1)
  })

  it('a hash that needs a rehash is checked alongside the dummy, and its own answer counts', async () => {
    const hasher = recordingHasher()
    const verify = paddedVerifier(hasher)
    expect(await verify('pw', 'old$pw')).toBe(true)
    expect(await verify('px', 'old$pw')).toBe(false)
    expect(hasher.calls.filter((call) => call === 'verify old$pw')).toHaveLength(2)
    expect(hasher.calls.filter((call) => call.startsWith('verify plain$'))).toHaveLength(2)
  })

  it('a dummy that failed to hash is made again on the next call', async () => {
    let fail = true
    const hasher: PasswordHasher = {
      hash: async () => {
        if (fail) throw new Error('hasher down')
        return 'plain$dummy'
      },
      verify: async () => false,
      needsRehash: () => false,
    }
    const verify = paddedVerifier(hasher)
    await expect(verify('pw', null)).rejects.toThrow('hasher down')
    fail = false
    expect(await verify('pw', null)).toBe(false)
  })
})
