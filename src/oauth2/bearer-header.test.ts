import fc from 'fast-check'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { isApiError } from '../core/errors.js'
import { MAX_ACCESS_TOKEN_LENGTH, parseBearerAuthorization } from './bearer-header.js'
import { OAuth2Authentication } from './oauth2-authentication.js'

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/
const latin1Char = fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c))
const tokenChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/')
const b64token = fc.tuple(fc.string({ unit: tokenChar, minLength: 1, maxLength: 60 }), fc.nat(3)).map(([body, pad]) => body + '='.repeat(pad))
const whitespace = fc.constantFrom(' ', '\t', '  ', ' \t ', '\n')
const randomCase = (word: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((flags) => [...word].map((c, i) => (flags[i] === true ? c.toUpperCase() : c)).join(''))

describe('parseBearerAuthorization (RFC 6750 §2.1)', () => {
  it('reads a b64token after "Bearer" in any case and any whitespace', () => {
    fc.assert(
      fc.property(randomCase('bearer'), whitespace, b64token, whitespace, (scheme, ws, token, trailing) => {
        expect(parseBearerAuthorization(`${scheme}${ws}${token}`)).toEqual({ kind: 'token', token })
        expect(parseBearerAuthorization(`${ws}${scheme}${ws}${token}${trailing}`)).toEqual({ kind: 'token', token })
      }),
    )
  })

  it('never throws; a token it returns is a b64token within the length bound, from a Bearer header', () => {
    const header = fc.oneof(
      fc.string({ unit: latin1Char, maxLength: 80 }),
      fc.tuple(randomCase('bearer'), whitespace, fc.string({ unit: latin1Char, maxLength: 60 })).map(([s, w, t]) => `${s}${w}${t}`),
      fc.tuple(randomCase('bearer'), whitespace, b64token, whitespace, b64token).map((parts) => parts.join('')),
    )
    fc.assert(
      fc.property(header, (value) => {
        const parsed = parseBearerAuthorization(value)
        if (parsed.kind === 'token') {
          expect(parsed.token).toMatch(B64TOKEN)
          expect(parsed.token.length).toBeLessThanOrEqual(MAX_ACCESS_TOKEN_LENGTH)
          expect(value.trim().slice(0, 6).toLowerCase()).toBe('bearer')
        }
        if (!/^[ \t\r\n\v\f]*bearer([ \t\r\n\v\f]|$)/i.test(value)) expect(parsed.kind).toBe('absent')
      }),
      { numRuns: 2000 },
    )
  })

  it('a Bearer header with no token, two tokens, or other characters is malformed; another scheme is absent', () => {
    expect(parseBearerAuthorization(null).kind).toBe('absent')
    expect(parseBearerAuthorization('Basic YTpi').kind).toBe('absent')
    expect(parseBearerAuthorization('Bearerx abc').kind).toBe('absent')
    for (const value of ['Bearer', 'Bearer a b', 'Bearer a=b', 'Bearer "a"', 'Bearer =abc', `Bearer ${'a'.repeat(MAX_ACCESS_TOKEN_LENGTH + 1)}`]) {
      expect(parseBearerAuthorization(value).kind, value.slice(0, 20)).toBe('malformed')
    }
    expect(parseBearerAuthorization(`Bearer ${'a'.repeat(MAX_ACCESS_TOKEN_LENGTH)}`).kind).toBe('token')
  })
})

describe('OAuth2Authentication on arbitrary Authorization headers', () => {
  it('answers null, a pair, or a 401 ApiError: never another throw (a provider served from memory)', async () => {
    const issuer = 'https://id.example/'
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1' }
    const documents: Record<string, unknown> = {
      'https://id.example/.well-known/openid-configuration': { issuer, jwks_uri: 'https://id.example/jwks' },
      'https://id.example/jwks': { keys: [jwk] },
    }
    const memoryFetch: typeof fetch = async (input) => {
      const body = documents[String(input)]
      return new Response(body === undefined ? 'no' : JSON.stringify(body), { status: body === undefined ? 404 : 200 })
    }
    const scheme = new OAuth2Authentication({ issuer, audience: 'api', fetch: memoryFetch, log: () => undefined })
    const now = Math.floor(Date.now() / 1000)
    const good = await new SignJWT({ iss: issuer, aud: 'api', sub: 'u', exp: now + 60, iat: now }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey)
    const outcome = async (header: string): Promise<string> => {
      try {
        const found = await scheme.authenticate(buildRequest({ headers: { Authorization: header } }))
        return found === null ? 'null' : 'pair'
      } catch (error) {
        if (isApiError(error) && error.status === 401) return '401'
        throw error
      }
    }
    expect(await outcome(`Bearer ${good}`)).toBe('pair')
    const mutated = fc.tuple(fc.nat(good.length - 1), fc.string({ unit: latin1Char, maxLength: 3 })).map(([at, s]) => good.slice(0, at) + s + good.slice(at + 1))
    const parts = fc.array(fc.base64String({ maxLength: 40 }), { maxLength: 5 }).map((p) => p.join('.'))
    const header = fc.oneof(
      fc.string({ unit: latin1Char, maxLength: 60 }),
      fc.tuple(randomCase('bearer'), whitespace, fc.oneof(mutated, parts, fc.string({ unit: latin1Char, maxLength: 40 }))).map(([s, w, t]) => `${s}${w}${t}`),
    )
    await fc.assert(
      fc.asyncProperty(header, async (value) => {
        expect(['null', 'pair', '401']).toContain(await outcome(value))
      }),
      { numRuns: 500 },
    )
  })
})
