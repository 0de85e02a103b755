import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeTokenStore, FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { AuthenticationFailed } from '../core/errors.js'
import type { TokenWithUser } from '../stores/token-store.js'
import type { TokenCache } from './token-cache.js'
import { TokenAuthentication } from './token-authentication.js'

const BOB = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const CAROL = 'ca7013ca7013ca7013ca7013ca7013ca7013ca70'

function scheme(keyword?: string, tokens = new FakeTokenStore([[BOB, 2], [CAROL, 3], ['k\xe9y', 1], ['ghost-user', 99]])): TokenAuthentication {
  return new TokenAuthentication({ tokens, users: new FakeUserStore(), ...(keyword === undefined ? {} : { keyword }) })
}

async function run(header: string | undefined, keyword?: string): Promise<string | null> {
  const result = await scheme(keyword).authenticate(buildRequest({ headers: header === undefined ? {} : { Authorization: header } }))
  return result === null ? null : result.user.username
}

describe('TokenAuthentication: not attempted', () => {
  it.each([
    ['no header', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['Basic', 'Basic YWxpY2U6eA=='],
    ['Bearer against the default keyword', `Bearer ${BOB}`],
    ['keyword as prefix', `Tokens ${BOB}`],
  ])('%s → null', async (_name, header) => {
    expect(await run(header)).toBeNull()
  })
})

describe('TokenAuthentication: drf-behaviors §4.2 failures', () => {
  it.each([
    ['Token', 'Invalid token header. No credentials provided.'],
    ['Token  \t ', 'Invalid token header. No credentials provided.'],
    ['Token a b', 'Invalid token header. Token string should not contain spaces.'],
    [`Token ${BOB} x`, 'Invalid token header. Token string should not contain spaces.'],
    // Node hands header bytes over as Latin-1 characters: 0xB8 alone is not UTF-8.
    ['Token abc\xb8', 'Invalid token header. Token string should not contain invalid characters.'],
    ['Token \xff\xfe', 'Invalid token header. Token string should not contain invalid characters.'],
    ['Token nope', 'Invalid token.'],
    [`Token ${BOB.toUpperCase()}`, 'Invalid token.'],
    [`Token ${BOB}0`, 'Invalid token.'],
    [`Token ${BOB.slice(1)}`, 'Invalid token.'],
    [`Token ${CAROL}`, 'User inactive or deleted.'],
    ['Token ghost-user', 'Invalid token.'],
  ])('%j → %j', async (header, message) => {
    const error = await run(header).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AuthenticationFailed)
    expect((error as AuthenticationFailed).detail).toBe(message)
  })
})

describe('TokenAuthentication: success', () => {
  it.each([
    ['plain', `Token ${BOB}`],
    ['lower-case keyword', `token ${BOB}`],
    ['upper-case keyword', `TOKEN ${BOB}`],
    ['tab and spaces', `Token \t  ${BOB}   `],
  ])('%s', async (_name, header) => {
    expect(await run(header)).toBe('bob')
  })

  it('decodes the key as UTF-8 (the Latin-1 chars of a UTF-8 "é" give the key "k\\xe9y")', async () => {
    expect(await run(`Token ${Buffer.from('k\xe9y', 'utf8').toString('latin1')}`)).toBe('alice')
  })

  it('auth is the token record', async () => {
    const result = await scheme().authenticate(buildRequest({ headers: { Authorization: `Token ${BOB}` } }))
    expect(result?.auth).toMatchObject({ key: BOB, userId: 2 })
  })
})

describe('TokenAuthentication: keyword', () => {
  it('Bearer keyword accepts Bearer (any case) and ignores Token', async () => {
    expect(await run(`Bearer ${BOB}`, 'Bearer')).toBe('bob')
    expect(await run(`bEaReR ${BOB}`, 'Bearer')).toBe('bob')
    expect(await run(`Token ${BOB}`, 'Bearer')).toBeNull()
    const error = await run('Bearer', 'Bearer').catch((e: unknown) => e)
    expect((error as AuthenticationFailed).detail).toBe('Invalid token header. No credentials provided.')
  })

  it('the challenge is the keyword alone', () => {
    expect(scheme().authenticateHeader()).toBe('Token')
    expect(scheme('Bearer').authenticateHeader()).toBe('Bearer')
  })
})

/** A token store with the joined lookup, which must be the only thing the scheme calls. */
class JoinedTokenStore extends FakeTokenStore {
  readonly joined: string[] = []
  constructor(private readonly users = new FakeUserStore()) {
    super([[BOB, 2], [CAROL, 3], ['ghost-user', 99]])
  }
  override async findByKey(): Promise<never> {
    throw new Error('findByKey must not be called when findWithUser exists')
  }
  async findWithUser(key: string): Promise<TokenWithUser | null> {
    this.joined.push(key)
    const token = this.tokens.get(key) ?? null
    const user = token === null ? null : await this.users.findById(token.userId)
    return token === null || user === null ? null : { token, user }
  }
}

const noUsers = { findById: async (): Promise<never> => Promise.reject(new Error('users.findById must not be called')) }

describe('TokenAuthentication: one lookup when the token store has findWithUser', () => {
  it.each([
    [BOB, 'bob'],
    [CAROL, 'User inactive or deleted.'],
    ['ghost-user', 'Invalid token.'],
    ['nope', 'Invalid token.'],
  ])('Token %s → %s, through findWithUser alone', async (key, expected) => {
    const tokens = new JoinedTokenStore()
    const scheme = new TokenAuthentication({ tokens, users: noUsers })
    const outcome = await Promise.resolve(scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } })))
      .then((r) => r?.user.username, (e: unknown) => (e as AuthenticationFailed).detail)
    expect(outcome).toBe(expected)
    expect(tokens.joined).toEqual([key])
  })

  it('auth is the token record from the joined lookup', async () => {
    const result = await new TokenAuthentication({ tokens: new JoinedTokenStore(), users: noUsers }).authenticate(
      buildRequest({ headers: { Authorization: `Token ${BOB}` } }),
    )
    expect(result?.auth).toMatchObject({ key: BOB, userId: 2 })
  })
})

describe('TokenAuthentication: cache option', () => {
  it("asks the cache, whose loader is the stores' lookup; the same DRF answers come out of it", async () => {
    const asked: string[] = []
    // A cache of one's own: remembers everything, forever (the interface is one method).
    const remembered = new Map<string, TokenWithUser | null>()
    const cache: TokenCache = {
      async get(key, load) {
        asked.push(key)
        if (!remembered.has(key)) remembered.set(key, await load(key))
        return remembered.get(key) ?? null
      },
    }
    const tokens = new FakeTokenStore([[BOB, 2], [CAROL, 3]])
    const scheme = new TokenAuthentication({ tokens, users: new FakeUserStore(), cache })
    const run = (key: string): Promise<unknown> =>
      Promise.resolve(scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } }))).then((r) => r?.user.username, (e: unknown) => (e as AuthenticationFailed).detail)
    expect(await run(BOB)).toBe('bob')
    tokens.tokens.delete(BOB)
    expect(await run(BOB)).toBe('bob') // from the cache: the store was not asked again
    expect(await run(CAROL)).toBe('User inactive or deleted.')
    expect(await run('nope')).toBe('Invalid token.')
    expect(asked).toEqual([BOB, BOB, CAROL, 'nope'])
  })

  it('header errors never reach the cache', async () => {
    const cache: TokenCache = { get: async () => Promise.reject(new Error('the cache must not be asked')) }
    const scheme = new TokenAuthentication({ tokens: new FakeTokenStore(), users: new FakeUserStore(), cache })
    for (const header of ['Token', 'Token a b', 'Token \xff\xfe']) {
      await expect(scheme.authenticate(buildRequest({ headers: { Authorization: header } }))).rejects.toBeInstanceOf(AuthenticationFailed)
    }
  })
})

describe('TokenAuthentication: expiring tokens and touch', () => {
  const alice = { id: 1, username: 'alice', isActive: true, isStaff: false, isAuthenticated: true } as const
  const request = buildRequest({ headers: { Authorization: 'Token gth_abc' } })

  it('a token past its expiresAt is "Invalid token." even when a cache still answers it', async () => {
    const expired: TokenWithUser = { token: { key: 'gth_abc', userId: 1, created: new Date(0), expiresAt: new Date(Date.now() - 1) }, user: alice }
    const cache: TokenCache = { get: async () => expired }
    const scheme = new TokenAuthentication({ tokens: new FakeTokenStore(), users: new FakeUserStore(), cache })
    await expect(scheme.authenticate(request)).rejects.toThrow(new AuthenticationFailed('Invalid token.'))
  })

  it('a token in date works, and the store\'s touch hears of each success (never of a failure)', async () => {
    const touched: string[] = []
    const valid: TokenWithUser = { token: { key: 'gth_abc', userId: 1, created: new Date(0), expiresAt: new Date(Date.now() + 60_000) }, user: alice }
    const tokens = {
      findByKey: async (): Promise<null> => null,
      findWithUser: async (key: string): Promise<TokenWithUser | null> => (key === 'gth_abc' ? valid : null),
      touch: async (token: { key: string }): Promise<void> => void touched.push(token.key),
    }
    const scheme = new TokenAuthentication({ tokens, users: new FakeUserStore() })
    expect(await scheme.authenticate(request)).toMatchObject({ user: alice, auth: valid.token })
    await expect(scheme.authenticate(buildRequest({ headers: { Authorization: 'Token nope' } }))).rejects.toThrow(AuthenticationFailed)
    expect(touched).toEqual(['gth_abc'])
  })
})
