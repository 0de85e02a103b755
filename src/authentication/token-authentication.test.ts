import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeTokenStore, FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { AuthenticationFailed } from '../core/errors.js'
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
