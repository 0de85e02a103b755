/**
 * Gatehouse's identity, token and session routes against the DRF 3.14 oracle:
 * the same requests (test/oracle/requests.ts), in the same order, to two freshly
 * seeded servers; status, WWW-Authenticate, Allow, Retry-After, Content-Type and
 * the JSON body (generated token keys and CSRF values masked) must be equal.
 * Skipped (reported as skipped) where Debian's Django/DRF are not installed.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { comparable, exchange, type ExchangeRequest, type SessionCookies } from './http-exchange.js'
import { oracleAvailable, startOracle, type RunningOracle } from './oracle-server.js'
import { BOB_TOKEN, CAROL_TOKEN, IDENTITY_REQUESTS, SESSION_REQUESTS, TOKEN_REQUESTS, WIRE_REQUESTS } from './requests.js'
import { unavailable } from '../helpers/requirements.js'

// Header values Node's client can send: tab, visible ASCII and Latin-1, no surrounding blanks.
const headerChar = fc.oneof(
  fc.constant('\t'),
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
)
const randomCase = (word: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((flags) =>
    [...word].map((c, i) => (flags[i] === true ? c.toUpperCase() : c)).join(''),
  )
const b64 = (text: string, encoding: BufferEncoding = 'utf8'): string => Buffer.from(text, encoding).toString('base64')
const credential = fc.oneof(
  fc.string({ unit: headerChar, maxLength: 30 }),
  fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJabcdefghij0123456789+/=!'), maxLength: 24 }),
  fc
    .tuple(fc.constantFrom('alice', 'carol', 'ghost', 'al\xefce', ''), fc.constantFrom(':', ''), fc.constantFrom('alice-pass-1', 'carol-pass-3', 'x:y', ''), fc.constantFrom<BufferEncoding>('utf8', 'latin1'))
    .map(([u, colon, p, enc]) => b64(u + colon + p, enc)),
  fc.constantFrom(BOB_TOKEN, CAROL_TOKEN, BOB_TOKEN.toUpperCase(), 'abc\xb8'),
)
const authorization = fc
  .tuple(fc.oneof(randomCase('basic'), randomCase('token'), randomCase('bearer'), fc.string({ unit: headerChar, maxLength: 6 })), fc.array(fc.tuple(fc.constantFrom(' ', '\t', '   '), credential), { maxLength: 3 }))
  .map(([keyword, rest]) => `${keyword}${rest.map(([w, c]) => w + c).join('')}`.trim())
  .filter((value) => value !== '')

describe.skipIf(unavailable('the DRF oracle (python3 with Django and DRF)', oracleAvailable()))('identity, token and session routes match DRF 3.14', () => {
  let ours: RunningReference
  let oracle: RunningOracle
  const sessions = new Map<string, SessionCookies | null>()

  beforeAll(async () => {
    ;[ours, oracle] = await Promise.all([startReference(freshSqlite()), startOracle()])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([ours?.close(), oracle?.close()])
  })

  /** Sends one request to both servers at once; their answers, masked for comparison. */
  async function bothAnswers(request: ExchangeRequest): Promise<unknown[]> {
    return (
      await Promise.all([exchange(ours.baseUrl, request, sessions), exchange(oracle.baseUrl, request, sessions)])
    ).map((result) => comparable(result, request))
  }

  // Sequential: some requests change state (remote-user creates users, the token view creates tokens).
  async function compare(requests: readonly ExchangeRequest[]): Promise<void> {
    const mismatches: string[] = []
    for (const request of requests) {
      const [a, b] = await bothAnswers(request)
      try {
        expect(a).toEqual(b)
      } catch {
        mismatches.push(`${request.name}\n  ours:   ${JSON.stringify(a)}\n  oracle: ${JSON.stringify(b)}`)
      }
    }
    expect(mismatches.join('\n')).toBe('')
  }

  it(`${IDENTITY_REQUESTS.length} identity requests`, async () => {
    await compare(IDENTITY_REQUESTS)
  }, 120_000)

  it(`${TOKEN_REQUESTS.length} token-endpoint requests`, async () => {
    await compare(TOKEN_REQUESTS)
  }, 120_000)

  it(`${SESSION_REQUESTS.length} session requests (login, CSRF)`, async () => {
    await compare(SESSION_REQUESTS)
  }, 120_000)

  it(`${WIRE_REQUESTS.length} wire details (paths, methods, 204, ?format=, query whitespace, stale cookies)`, async () => {
    await compare(WIRE_REQUESTS)
  }, 120_000)

  it('arbitrary Authorization headers get the same answer (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/whoami/', '/api/private/', '/api/schemes/basic/', '/api/schemes/bearer/', '/api/schemes/session-basic/'),
        authorization,
        async (path, header) => {
          const request: ExchangeRequest = { name: `${path} ${JSON.stringify(header)}`, method: 'GET', path, headers: { Authorization: header } }
          const [a, b] = await bothAnswers(request)
          expect(a, request.name).toEqual(b)
        },
      ),
      // ORACLE_RUNS / ORACLE_SEED widen the search by hand; CI keeps it small and fixed.
      { numRuns: Number(process.env['ORACLE_RUNS'] ?? 60), seed: Number(process.env['ORACLE_SEED'] ?? 1121) },
    )
  }, 120_000)

  it('arbitrary session and CSRF cookie shapes get the same answer (property)', async () => {
    const mutate = fc.constantFrom('{v}', '{v}x', 'x{v}', '"{v}"', '{v} ', '', 'bogus')
    const cookiePart = fc.tuple(fc.constantFrom('sessionid', 'csrftoken', 'SESSIONID', 'other'), mutate, fc.constantFrom('{sessionid}', '{csrftoken}'))
    await fc.assert(
      fc.asyncProperty(
        fc.array(cookiePart, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('; ', ';', ' ; '),
        fc.constantFrom('GET', 'POST'),
        fc.option(mutate),
        async (parts, separator, method, csrfHeader) => {
          const cookie = parts.map(([name, shape, value]) => `${name}=${shape.replace('{v}', value)}`).join(separator)
          const request: ExchangeRequest = {
            name: `${method} Cookie ${cookie} X-CSRFToken ${csrfHeader}`,
            method,
            path: '/api/schemes/session/',
            session: { username: 'alice', csrf: false, cookie },
          }
          const send = async (baseUrl: string): Promise<Record<string, unknown>> => {
            const key = `${baseUrl} alice`
            const cookies = sessions.get(key)
            const headers: Record<string, string> =
              csrfHeader === null || cookies === undefined || cookies === null
                ? {}
                : { 'X-CSRFToken': csrfHeader.replace('{v}', cookies.csrftoken) }
            return comparable(await exchange(baseUrl, { ...request, headers }, sessions), request)
          }
          // Log in first (cached), so the header can use each server's own token.
          await bothAnswers(request)
          const [a, b] = await Promise.all([send(ours.baseUrl), send(oracle.baseUrl)])
          expect(a, request.name).toEqual(b)
        },
      ),
      { numRuns: Number(process.env['ORACLE_RUNS'] ?? 60), seed: Number(process.env['ORACLE_SEED'] ?? 1121) },
    )
  }, 120_000)

  it('arbitrary token-endpoint bodies get the same answer (property)', async () => {
    const field = fc.oneof(
      fc.constantFrom('alice', ' alice ', 'alice-pass-1', 'carol', '', ' ', '\t', 'a\u0000b', '\ud800', 'é'),
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.constantFrom(0, -0, 1.5, 1e21, true, false, null),
      fc.constantFrom([], ['alice'], {}, { a: 1 }),
    )
    const body = fc.oneof(
      fc.record({ username: field, password: field }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
      fc.constantFrom('[]', '"x"', '1', 'null', 'true', '{}', '{"username": "alice", "password": "alice-pass-1", "x": 1}'),
    )
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('application/json', 'application/x-www-form-urlencoded'), async (json, contentType) => {
        const payload =
          contentType === 'application/json'
            ? json
            : new URLSearchParams(
                Object.entries((JSON.parse(json) as Record<string, unknown> | null) ?? {}).map(([k, v]) => [k, String(v)]),
              ).toString()
        const request: ExchangeRequest = {
          name: `token ${contentType} ${payload}`,
          method: 'POST',
          path: '/api/auth/token/',
          headers: { 'Content-Type': contentType },
          body: payload,
        }
        const [a, b] = await bothAnswers(request)
        expect(a, request.name).toEqual(b)
      }),
      { numRuns: Number(process.env['ORACLE_RUNS'] ?? 60), seed: Number(process.env['ORACLE_SEED'] ?? 1121) },
    )
  }, 120_000)

  it('the masking does not hide real differences', () => {
    const base = { status: 200, headers: { 'content-type': 'application/json' }, text: '' }
    const a = comparable({ ...base, body: { token: 'a'.repeat(40) } })
    const b = comparable({ ...base, body: { token: 'b'.repeat(40) } })
    const c = comparable({ ...base, body: { token: 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' } })
    expect(a).toEqual(b)
    expect(a).not.toEqual(c)
    expect(comparable({ ...base, status: 401, body: {} })).not.toEqual(comparable({ ...base, body: {} }))
  })
})
