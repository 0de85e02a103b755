/**
 * Property tests of every parser of authentication input: arbitrary Authorization
 * and Cookie headers through the schemes (a user, `null`, or a 401/403 ApiError,
 * never another throw), the lenient base64 decoder against Python's, and bounded
 * runs over real HTTP (never a 500).
 */
import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BasicAuthentication } from '../../src/authentication/basic-authentication.js'
import { SessionAuthentication } from '../../src/authentication/session-authentication.js'
import { TokenAuthentication } from '../../src/authentication/token-authentication.js'
import { AuthenticationFailed, isApiError, PermissionDenied } from '../../src/core/errors.js'
import type { MaybePromise } from '../../src/core/maybe-promise.js'
import { parseCookies } from '../../src/core/request/request-factory.js'
import { lenientBase64Decode, splitAuthorizationHeader } from '../../src/core/request/authorization-header.js'
import { buildRequest } from '../helpers/build-request.js'
import { freshSqlite } from '../helpers/databases.js'
import { FakeSessionStore, FakeTokenStore, FakeUserStore } from '../helpers/fake-auth-stores.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { login, send, type SessionCookies } from '../oracle/http-exchange.js'
import { unavailable } from '../helpers/requirements.js'

const BOB = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

/** One Latin-1 character (what Node hands over for any header byte). */
const latin1Char = fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c))
const whitespace = fc.constantFrom(' ', '\t', '\r', '\n', '\v', '\f', '  ', ' \t ')
const base64ish = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=!é-_'), maxLength: 40 })
const randomCase = (word: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((flags) =>
    [...word].map((c, i) => (flags[i] === true ? c.toUpperCase() : c.toLowerCase())).join(''),
  )
const keyword = fc.oneof(randomCase('basic'), randomCase('token'), randomCase('bearer'), fc.string({ maxLength: 8 }))
const validBasic = fc
  .tuple(fc.constantFrom('alice', 'bob', 'carol', 'ghost', ''), fc.constantFrom('alice-pass-1', 'bob-pass-2', '', 'x:y'))
  .map(([u, p]) => Buffer.from(`${u}:${p}`).toString('base64'))
const credential = fc.oneof(base64ish, validBasic, fc.constant(BOB), fc.string({ unit: latin1Char, maxLength: 50 }))

/** Authorization values: structured (keyword, whitespace, credentials) or raw Latin-1 noise. */
const authorizationHeader = fc.oneof(
  fc.string({ unit: latin1Char, maxLength: 80 }),
  fc
    .tuple(fc.option(whitespace), keyword, fc.array(fc.tuple(whitespace, credential), { maxLength: 3 }), fc.option(whitespace))
    .map(([lead, kw, rest, trail]) => `${lead ?? ''}${kw}${rest.map(([w, c]) => w + c).join('')}${trail ?? ''}`),
)

const users = new FakeUserStore()
const tokens = new FakeTokenStore([
  [BOB, 2],
  ['ca7013ca7013ca7013ca7013ca7013ca7013ca70', 3],
])

async function outcome(promise: MaybePromise<{ user: { username: string | null } } | null>): Promise<string> {
  try {
    const result = await promise
    return result === null ? 'null' : `user:${result.user.username}`
  } catch (error) {
    if (isApiError(error)) return `error:${error.status}`
    throw error
  }
}

describe('Authorization header parsing (property)', () => {
  const schemes = [
    new BasicAuthentication({ users }),
    new TokenAuthentication({ users, tokens }),
    new TokenAuthentication({ users, tokens, keyword: 'Bearer' }),
  ]

  it('Basic and Token give a user, null, or AuthenticationFailed: never another throw', async () => {
    await fc.assert(
      fc.asyncProperty(authorizationHeader, async (header) => {
        for (const scheme of schemes) {
          try {
            await scheme.authenticate(buildRequest({ headers: { Authorization: header } }))
          } catch (error) {
            expect(error).toBeInstanceOf(AuthenticationFailed)
            expect((error as AuthenticationFailed).status).toBe(401)
            expect(typeof (error as AuthenticationFailed).detail).toBe('string')
          }
        }
      }),
      { numRuns: 500 },
    )
  })

  it('a scheme other than its keyword is never attempted', async () => {
    await fc.assert(
      fc.asyncProperty(authorizationHeader, async (header) => {
        const first = splitAuthorizationHeader(header)[0]?.toLowerCase()
        const basic = await outcome(schemes[0]!.authenticate(buildRequest({ headers: { Authorization: header } })))
        const token = await outcome(schemes[1]!.authenticate(buildRequest({ headers: { Authorization: header } })))
        if (first !== 'basic') expect(basic).toBe('null')
        if (first !== 'token') expect(token).toBe('null')
      }),
      { numRuns: 300 },
    )
  })

  it('Basic passes any user id without ":" and any password through unchanged', async () => {
    const store = new FakeUserStore()
    const basic = new BasicAuthentication({ users: store })
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 20 }).filter((u) => !u.includes(':')),
        fc.string({ unit: 'binary', maxLength: 20 }),
        async (username, password) => {
          store.calls.length = 0
          const header = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`
          await basic.authenticate(buildRequest({ headers: { Authorization: header } })).catch(() => null)
          expect(store.calls).toEqual([{ username, password }])
        },
      ),
      { numRuns: 300 },
    )
  })
})

const python = spawnSync('/usr/bin/python3', ['-c', 'import base64'], { stdio: 'ignore' }).status === 0

describe.skipIf(unavailable('python3', python))('lenientBase64Decode equals Python base64.b64decode (differential)', () => {
  it('on 600 generated inputs', () => {
    const inputs = fc.sample(
      fc.oneof(base64ish, fc.string({ unit: fc.constantFrom(...'AQgw=a=b'), maxLength: 12 }), fc.string({ unit: latin1Char, maxLength: 16 })),
      { numRuns: 600, seed: 424242 },
    )
    const script = [
      'import base64, binascii, json, sys',
      'out = []',
      'for s in json.load(sys.stdin):',
      '    try: out.append(base64.b64decode(s.encode("latin1")).hex())',
      '    except binascii.Error: out.append(None)',
      'print(json.dumps(out))',
    ].join('\n')
    const run = spawnSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(inputs), encoding: 'utf8' })
    expect(run.status).toBe(0)
    const expected = JSON.parse(run.stdout) as (string | null)[]
    const actual = inputs.map((s) => {
      const bytes = lenientBase64Decode(s)
      return bytes === null ? null : Buffer.from(bytes).toString('hex')
    })
    const mismatches = inputs.filter((_, i) => actual[i] !== expected[i]).map((s, i) => ({ s, ours: actual[i], python: expected[i] }))
    expect(mismatches).toEqual([])
  })
})

describe('Cookie header parsing (property)', () => {
  const sessions = new FakeSessionStore()
  sessions.sessions.set('s-alice', { userId: 1, data: {}, expiresAt: new Date(Date.now() + 3_600_000) })
  const session = new SessionAuthentication({ sessions, users })
  const cookieHeader = fc.oneof(
    fc.string({ unit: latin1Char, maxLength: 80 }),
    fc
      .array(
        fc.tuple(
          fc.oneof(fc.constantFrom('sessionid', 'csrftoken', ' sessionid', ''), fc.string({ maxLength: 6 })),
          fc.oneof(fc.constantFrom('s-alice', 'nope', '%00', '%zz', '"s-alice"', ''), fc.string({ unit: latin1Char, maxLength: 70 })),
        ),
        { maxLength: 4 },
      )
      .chain((pairs) => fc.constantFrom('; ', ';', ', ').map((sep) => pairs.map(([k, v]) => `${k}=${v}`).join(sep))),
  )

  it('parseCookies never throws and returns string values', () => {
    fc.assert(
      fc.property(cookieHeader, (header) => {
        const cookies = parseCookies(header)
        for (const value of Object.values(cookies)) expect(typeof value).toBe('string')
      }),
      { numRuns: 1000 },
    )
  })

  it('SessionAuthentication gives a user, null or a CSRF 403 (or a body 4xx): never another throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        cookieHeader,
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'),
        fc.option(fc.string({ unit: latin1Char, maxLength: 70 })),
        fc.option(fc.constantFrom('http://testserver', 'http://evil', 'null', '')),
        async (cookie, method, csrfHeader, origin) => {
          const headers: Record<string, string> = { Cookie: cookie }
          if (csrfHeader !== null) headers['X-CSRFToken'] = csrfHeader
          if (origin !== null) headers['Origin'] = origin
          try {
            await session.authenticate(buildRequest({ method, headers }))
          } catch (error) {
            expect(error).toBeInstanceOf(PermissionDenied)
            expect((error as PermissionDenied).detail).toMatch(/^CSRF Failed: /)
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})

describe('over real HTTP: arbitrary header values never give a 500', () => {
  let server: RunningReference
  let alice: SessionCookies | null = null

  beforeAll(async () => {
    server = await startReference(freshSqlite())
    alice = await login(server.baseUrl, 'alice')
  })
  afterAll(async () => server?.close())

  // What Node's HTTP client accepts in a header value: tab, visible ASCII, Latin-1; no leading/trailing blank.
  const headerChar = fc.oneof(
    fc.constant('\t'),
    fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
  )
  const headerValue = (inner: fc.Arbitrary<string>): fc.Arbitrary<string> => inner.map((v) => v.trim()).filter((v) => v !== '')
  const httpAuthorization = headerValue(
    fc.oneof(
      fc.string({ unit: headerChar, maxLength: 60 }),
      fc.tuple(keyword, fc.constantFrom(' ', '\t', '  '), credential.map((c) => c.replace(/[^\t\x20-\x7e\x80-\xff]/g, ''))).map(([k, w, c]) => k + w + c),
    ),
  )

  it('GET and POST on identity routes: 200, 401 or 403 (400/415 only from a session POST body)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/whoami/', '/api/private/', '/api/schemes/session/'),
        fc.constantFrom('GET', 'POST'),
        fc.option(httpAuthorization),
        fc.option(headerValue(fc.string({ unit: headerChar, maxLength: 60 }))),
        fc.boolean(),
        fc.option(headerValue(fc.string({ unit: headerChar, maxLength: 70 }))),
        fc.option(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded')),
        async (path, method, authorization, rawCookie, withSession, csrf, contentType) => {
          const headers: Record<string, string> = {}
          if (authorization !== null) headers['Authorization'] = authorization
          const cookies: string[] = []
          if (rawCookie !== null) cookies.push(rawCookie)
          if (withSession && alice !== null) cookies.push(`sessionid=${alice.sessionid}`, `csrftoken=${alice.csrftoken}`)
          if (cookies.length > 0) headers['Cookie'] = cookies.join('; ')
          if (csrf !== null) headers['X-CSRFToken'] = csrf
          let body: string | undefined
          if (method === 'POST' && contentType !== null) {
            headers['Content-Type'] = contentType
            body = contentType === 'application/json' ? '{"a": [1, ' : 'a=1&csrfmiddlewaretoken=x'
          }
          const response = await send(server.baseUrl, method, path, headers, body)
          const allowed =
            method === 'POST' && path !== '/api/schemes/session/'
              ? [401, 403, 405, 400, 415]
              : method === 'POST'
                ? [200, 400, 401, 403, 415]
                : [200, 401, 403]
          expect(allowed, `${method} ${path} ${JSON.stringify(headers)} → ${response.status} ${response.text}`).toContain(response.status)
          expect(response.headers['content-type']).toBe('application/json')
        },
      ),
      { numRuns: 100 },
    )
  }, 120_000)
})
