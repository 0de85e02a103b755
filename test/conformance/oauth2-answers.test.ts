/**
 * The reference API's OAuth 2.0 routes over real HTTP on each framework, against a fake
 * authorization server (test/helpers/fake-provider.ts) serving introspection answers a real
 * provider would not give: an answer without `aud`, with a foreign or no `iss`, with a
 * non-boolean `active` is a 401 invalid_token; more distinct tokens in flight than the default
 * cap (32) is a 503 with `Retry-After` and DRF's body. Configured as the serve command reads it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { referenceConfigFromEnv } from '../../examples/reference-api/context.js'
import { freshSqlite } from '../helpers/databases.js'
import { startFakeProvider, type FakeProvider } from '../helpers/fake-provider.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { send, type ExchangeResult } from '../oracle/http-exchange.js'

const API = 'https://notes.gatehouse.test'
const RS = Object.freeze({ id: 'notes-api', secret: 'notes-api-introspection-secret-42' })
const INVALID_TOKEN = 'Bearer realm="api", error="invalid_token"'
/** introspection.maxInFlight's default, as docs/oauth2.md states it. */
const DEFAULT_MAX_IN_FLIGHT = 32

describe('OAuth 2.0 routes: introspection answers the checks refuse, and the cap on introspections in flight', () => {
  let provider: FakeProvider
  let server: RunningReference
  let count = 0
  const get = (token: string): Promise<ExchangeResult> => send(server.baseUrl, 'GET', '/api/schemes/oauth2/', { Authorization: `Bearer ${token}` })
  const seconds = (): number => Math.floor(Date.now() / 1000)
  /** A fresh opaque token whose introspection answer is a good one with `changes` (`undefined` leaves a field out). */
  const opaque = (changes: Record<string, unknown> = {}): string => {
    const answer: Record<string, unknown> = { active: true, iss: provider.origin, aud: API, sub: 'alice', scope: 'read', token_type: 'Bearer', exp: seconds() + 300, ...changes }
    for (const [k, v] of Object.entries(answer)) if (v === undefined) delete answer[k]
    const token = `opaque-${++count}-${Math.random().toString(36).slice(2)}`
    provider.answers.set(token, answer)
    return token
  }

  beforeAll(async () => {
    provider = await startFakeProvider({ client: RS })
    const config = referenceConfigFromEnv({
      GATEHOUSE_OAUTH_ISSUER: provider.origin,
      GATEHOUSE_OAUTH_AUDIENCE: API,
      GATEHOUSE_OAUTH_INTROSPECTION: `${RS.id}:${RS.secret}`,
    })
    server = await startReference(freshSqlite(), { oauth2: config.oauth2 })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await provider?.close()
  })
  beforeEach(() => {
    provider.introspect = (token) => provider.answers.get(token) ?? { active: false }
  })

  it('a good answer: 200 with the whoami body (the control of the rows below)', async () => {
    const token = opaque()
    const ok = await get(token)
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ username: 'alice', authenticated: true, auth: token })
  })

  it.each<[string, Record<string, unknown>, string]>([
    ['no aud', { aud: undefined }, 'The access token is not meant for this API.'],
    ['another API\'s aud', { aud: 'https://other.gatehouse.test' }, 'The access token is not meant for this API.'],
    ['a foreign iss', { iss: 'https://evil.example/' }, 'The access token is from another issuer.'],
    ['no iss', { iss: undefined }, 'The access token is from another issuer.'],
    ['"active": "false"', { active: 'false' }, 'The access token is not active.'],
    ['"active": 1', { active: 1 }, 'The access token is not active.'],
    ['a future nbf', { nbf: 'in ten minutes' }, 'The access token is not valid yet.'],
    ['token_type refresh_token', { token_type: 'refresh_token' }, 'The token is not an access token.'],
  ])('an answer with %s: 401 invalid_token', async (_name, changes, message) => {
    // nbf: the row's words stand for a time taken when the test runs.
    const refused = await get(opaque(changes['nbf'] === undefined ? changes : { nbf: seconds() + 600 }))
    expect(refused.status).toBe(401)
    expect(refused.body).toEqual({ detail: message })
    expect(refused.headers['www-authenticate']).toBe(INVALID_TOKEN)
  })

  it(`over ${DEFAULT_MAX_IN_FLIGHT} distinct tokens in introspection at once: 503 with Retry-After and DRF's body, without asking the provider`, async () => {
    let release = (): void => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    provider.introspect = async (token) => {
      await gate
      return provider.answers.get(token) ?? { active: false }
    }
    const before = provider.requestsTo('/introspect').length
    const held = Array.from({ length: DEFAULT_MAX_IN_FLIGHT }, () => get(opaque()))
    try {
      await provider.waitForRequests('/introspect', before + DEFAULT_MAX_IN_FLIGHT)
      const extra = opaque()
      const busy = await get(extra)
      expect(busy.status).toBe(503)
      expect(busy.headers['retry-after']).toBe('1')
      expect(busy.body).toEqual({ detail: 'Too many access tokens are being checked with the authorization server, try again later.' })
      expect(provider.requestsTo('/introspect').filter((r) => r.form.get('token') === extra)).toEqual([])
    } finally {
      release()
    }
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual(Array.from({ length: DEFAULT_MAX_IN_FLIGHT }, () => 200))
    // Room again.
    expect((await get(opaque())).status).toBe(200)
  })
})
