/**
 * Gatehouse's identity, token and session routes against the DRF 3.14 oracle:
 * the same requests (test/oracle/requests.ts), in the same order, to two freshly
 * seeded servers; status, WWW-Authenticate, Allow, Retry-After, Content-Type and
 * the JSON body (generated token keys and CSRF values masked) must be equal.
 * Skipped (reported as skipped) where Debian's Django/DRF are not installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { comparable, exchange, type ExchangeRequest, type SessionCookies } from './http-exchange.js'
import { oracleAvailable, startOracle, type RunningOracle } from './oracle-server.js'
import { IDENTITY_REQUESTS, SESSION_REQUESTS, TOKEN_REQUESTS } from './requests.js'

describe.skipIf(!oracleAvailable())('identity, token and session routes match DRF 3.14', () => {
  let ours: RunningReference
  let oracle: RunningOracle
  const sessions = new Map<string, SessionCookies | null>()

  beforeAll(async () => {
    ;[ours, oracle] = await Promise.all([startReference(freshSqlite()), startOracle()])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([ours?.close(), oracle?.close()])
  })

  // Sequential: some requests change state (remote-user creates users, the token view creates tokens).
  async function compare(requests: readonly ExchangeRequest[]): Promise<void> {
    const mismatches: string[] = []
    for (const request of requests) {
      const [a, b] = (
        await Promise.all([exchange(ours.baseUrl, request, sessions), exchange(oracle.baseUrl, request, sessions)])
      ).map((result) => comparable(result, request))
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
