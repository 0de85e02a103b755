import { Buffer } from 'node:buffer'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { AuthenticationFailed } from '../core/errors.js'
import { JWTAuthentication, JWTStatelessUserAuthentication, integerUserId } from './jwt-authentication.js'
import { JwtCodec, type JwtPayload } from './jwt-codec.js'
import { resolveJwtSettings, type JwtSettings } from './jwt-settings.js'
import { TokenError } from './token-error.js'

const KEY = 'unit-test-signing-key-0123456789abcdef'
const clock = 1_700_000_000
const codecWith = (settings: Partial<JwtSettings> = {}): JwtCodec => new JwtCodec(resolveJwtSettings({ signingKey: KEY, ...settings }), () => clock)
const codec = codecWith()
const access = (over: Record<string, unknown> = {}, c: JwtCodec = codec): Promise<string> =>
  c.encode({ ...c.newPayload('access', clock, 300), user_id: 2, ...over })
const scheme = new JWTAuthentication({ codec, users: new FakeUserStore() })
const auth = (header: string | undefined, s: JWTStatelessUserAuthentication = scheme): Promise<unknown> =>
  s.authenticate(buildRequest({ headers: header === undefined ? {} : { Authorization: header } }))
const failure = async (promise: Promise<unknown>): Promise<unknown> => {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(AuthenticationFailed)
  return (error as AuthenticationFailed).detail
}

/** A token's signature as bytes (hex), decoded as base64url decoders do: unused trailing bits ignored. */
const base64urlBytes = (token: string): string => Buffer.from(token.split('.')[2] ?? '', 'base64url').toString('hex')

describe('JwtCodec', () => {
  it('claims in simplejwt\'s order, exp = iat + lifetime, jti a uuid4 hex', async () => {
    const payload = await codec.decode(await access(), 'access')
    expect(Object.keys(payload)).toEqual(['token_type', 'exp', 'iat', 'jti', 'user_id'])
    expect(payload['exp']).toBe(clock + 300)
    expect(payload['jti']).toMatch(/^[0-9a-f]{32}$/)
  })

  it('LEEWAY lets a just-expired token through, and a just-future iat', async () => {
    const lenient = codecWith({ leeway: 30 })
    const expired = await access({ exp: clock - 10 })
    await expect(codec.decode(expired, 'access')).rejects.toThrow('Token is invalid or expired')
    expect(await lenient.decode(expired, 'access')).toMatchObject({ user_id: 2 })
    await expect(codec.decode(await access({ iat: clock + 10 }), 'access')).rejects.toThrow('Token is invalid or expired')
    expect(await lenient.decode(await access({ iat: clock + 10 }), 'access')).toMatchObject({ user_id: 2 })
  })

  it('AUDIENCE and ISSUER are written and required', async () => {
    const scoped = codecWith({ audience: 'mobile', issuer: 'https://id.example' })
    const token = await access({}, scoped)
    expect(await scoped.decode(token, 'access')).toMatchObject({ aud: 'mobile', iss: 'https://id.example' })
    await expect(scoped.decode(await access(), 'access')).rejects.toThrow(TokenError)
    await expect(codecWith({ audience: 'web', issuer: 'https://id.example' }).decode(token, 'access')).rejects.toThrow(TokenError)
  })

  it('refuses a token with anything but base64url characters in a segment, though the decoders would skip it', async () => {
    const good = await access()
    const signatureAt = good.lastIndexOf('.') + 5
    for (const extra of [' ', '\t', '\n', '=', '+', '/']) {
      await expect(codec.decode(good.slice(0, signatureAt) + extra + good.slice(signatureAt), 'access'), JSON.stringify(extra)).rejects.toThrow(TokenError)
    }
    await expect(codec.decode(`${good} `, 'access')).rejects.toThrow(TokenError)
    await expect(codec.decode(good, 'access')).resolves.toMatchObject({ user_id: 2 })
  })

  it('never throws anything but TokenError, for any string (property)', async () => {
    const good = await access()
    const tokenLike = fc.oneof(
      fc.string(),
      fc.array(fc.base64String({ maxLength: 40 }), { maxLength: 5 }).map((parts) => parts.join('.')),
      fc.tuple(fc.nat(good.length - 1), fc.string({ maxLength: 3 })).map(([at, s]) => good.slice(0, at) + s + good.slice(at + 1)),
    )
    await fc.assert(
      fc.asyncProperty(tokenLike, async (token) => {
        try {
          const payload: JwtPayload = await codec.decode(token, 'access')
          // Only the good token, or one whose last character differs only in the bits base64url
          // leaves unused (the same signature bytes: PyJWT's decoder ignores them too).
          const sameBytes = token.length === good.length && token.slice(0, -1) === good.slice(0, -1) && base64urlBytes(token) === base64urlBytes(good)
          expect(token === good || sameBytes, token).toBe(true)
          expect(payload['user_id']).toBe(2)
        } catch (error) {
          expect(error).toBeInstanceOf(TokenError)
        }
      }),
      { numRuns: 1000 },
    )
  })
})

describe('JWTAuthentication', () => {
  it('not attempted without a header type (matched case-sensitively)', async () => {
    const token = await access()
    for (const header of [undefined, '', '   ', `bearer ${token}`, `BEARER ${token}`, `Token ${token}`, `Basic ${token}`]) {
      expect(await auth(header), String(header)).toBeNull()
    }
  })

  it('authenticates the user in the user_id claim; deleted and inactive users fail with simplejwt\'s codes', async () => {
    expect(await auth(`Bearer ${await access()}`)).toMatchObject({ user: { id: 2, username: 'bob' } })
    expect(await auth(`Bearer ${await access({ user_id: '2' })}`)).toMatchObject({ user: { id: 2 } })
    expect(await failure(auth(`Bearer ${await access({ user_id: 99 })}`))).toEqual({ detail: 'User not found', code: 'user_not_found' })
    expect(await failure(auth(`Bearer ${await access({ user_id: 'abc' })}`))).toEqual({ detail: 'User not found', code: 'user_not_found' })
    expect(await failure(auth(`Bearer ${await access({ user_id: 3 })}`))).toEqual({ detail: 'User is inactive', code: 'user_inactive' })
    expect(await failure(auth(`Bearer ${await access({ user_id: undefined })}`))).toEqual({
      detail: 'Token contained no recognizable user identification',
      code: 'token_not_valid',
    })
  })

  it('AUTH_HEADER_TYPES: any listed keyword; the first is the challenge', async () => {
    const c = codecWith({ authHeaderTypes: ['JWT', 'Bearer'] })
    const s = new JWTAuthentication({ codec: c, users: new FakeUserStore() })
    expect(await auth(`Bearer ${await access({}, c)}`, s)).toMatchObject({ user: { id: 2 } })
    expect(await auth(`JWT ${await access({}, c)}`, s)).toMatchObject({ user: { id: 2 } })
    expect(s.authenticateHeader()).toBe('JWT realm="api"')
    expect(scheme.authenticateHeader()).toBe('Bearer realm="api"')
  })

  it('a bad token: "Given token not valid for any token type" with the AccessToken message', async () => {
    expect(await failure(auth('Bearer x.y.z'))).toEqual({
      detail: 'Given token not valid for any token type',
      code: 'token_not_valid',
      messages: [{ token_class: 'AccessToken', token_type: 'access', message: 'Token is invalid or expired' }],
    })
  })

  it('any Authorization header: null, a user, or a 401 AuthenticationFailed; never another error (property)', async () => {
    const good = await access()
    const header = fc.oneof(
      fc.string(),
      fc.string().map((s) => `Bearer ${s}`),
      fc.string({ unit: fc.constantFrom(' ', '\t', 'B', 'e', 'a', 'r', '.', 'x') }),
      fc.constantFrom(`Bearer ${good}`, `Bearer  ${good} `, `Bearer\t${good}`),
    )
    await fc.assert(
      fc.asyncProperty(header, async (h) => {
        try {
          const result = await auth(h)
          if (result !== null) expect(result).toMatchObject({ user: { id: 2 } })
        } catch (error) {
          expect(error).toBeInstanceOf(AuthenticationFailed)
          expect((error as AuthenticationFailed).status).toBe(401)
          expect(JSON.stringify((error as AuthenticationFailed).detail)).not.toContain(KEY)
        }
      }),
      { numRuns: 1000 },
    )
  })
})

describe('JWTStatelessUserAuthentication', () => {
  it('builds simplejwt\'s TokenUser from the claims, without a store', async () => {
    const stateless = new JWTStatelessUserAuthentication({ codec })
    expect(await auth(`Bearer ${await access({ user_id: 99, username: 'ghost' })}`, stateless)).toMatchObject({
      user: { id: 99, username: 'ghost', isActive: true, isStaff: false, isAuthenticated: true },
      auth: { user_id: 99 },
    })
  })
})

describe('integerUserId', () => {
  it('integers and digit strings; anything else is null', () => {
    expect([5, '5', 5.5, 'abc', '', null, true, '1e3', ' 5'].map(integerUserId)).toEqual([5, 5, null, null, null, null, null, null, null])
  })
})
