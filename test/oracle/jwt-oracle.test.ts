/**
 * Gatehouse's JWT routes against the real simplejwt 5.2.2 (issue 25): Django + DRF + simplejwt
 * (the DRF oracle with simplejwt's views added, test/oracle/simplejwt/oracle/) beside the reference API, on
 * the framework of the vitest project and on SQLite and (with DATABASE_URL) PostgreSQL, one
 * Django per database shared by the four framework projects. The same requests in the same
 * order to both; status, WWW-Authenticate, Allow, Vary, Content-Type and body must be equal,
 * minted tokens compared by header, claims and lifetimes. Tokens each server minted are sent to
 * both. Then seeded generated requests (`JWT_ORACLE_SEED`, `JWT_ORACLE_RUNS`; seed printed).
 *
 * The documented differences (README "Differences from DRF", docs/jwt.md) are asserted, not
 * skipped: where simplejwt answers 500 gatehouse answers 401 with the challenge, and refresh for
 * a deleted or inactive user is 401 no_active_account where 5.2.2 refreshes.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oracleBackends } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { comparableJwt, peekClaims } from './simplejwt/jwt-exchange.js'
import { craftedTokens, fixedJwtCases, rotationJwtCases, type Improvement, type JwtCase, type MintedPairs, type Pair } from './simplejwt/jwt-requests.js'
import { generatedJwtRequest } from './simplejwt/jwt-generated.js'
import { sharedSimplejwtOracle } from './simplejwt/shared-simplejwt-oracle.js'
import { JWT_ORACLE_KEY, simplejwtOracleUnavailable, type OracleSettings, type RunningSimplejwtOracle } from './simplejwt/simplejwt-oracle.js'
import { exchange, send, type ExchangeRequest, type ExchangeResult, type SessionCookies } from './http-exchange.js'
import { unavailable } from '../helpers/requirements.js'

const SEED = Number(process.env['JWT_ORACLE_SEED'] ?? 2525)
const RUNS = Number(process.env['JWT_ORACLE_RUNS'] ?? 100)
const CHALLENGE = 'Bearer realm="api"'
/** The seed's active users (reference-api.md): alice 1, bob 2, admin 4; carol (3) is inactive. */
const ACTIVE_USER_IDS = new Set([1, 2, 4])

/** The refresh token a request body carries (JSON or form-encoded), or `undefined`. */
function refreshOf(request: ExchangeRequest): unknown {
  const body = request.body ?? ''
  const type = request.headers?.['Content-Type'] ?? ''
  try {
    if (type.startsWith('application/json')) return (JSON.parse(body) as Record<string, unknown> | null)?.['refresh']
    if (type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams(body).get('refresh') ?? undefined
  } catch {
    return undefined
  }
  return undefined
}

/**
 * Which documented difference this exchange shows, asserting gatehouse's side of it, or `null`
 * when the two answers must be equal.
 */
function documentedDifference(request: ExchangeRequest, ours: ExchangeResult, theirs: ExchangeResult): Improvement | null {
  if (theirs.status === 500) {
    expect({ status: ours.status, challenge: ours.headers['www-authenticate'] }, `${request.name}: gatehouse answers 401 where simplejwt fails`).toEqual({ status: 401, challenge: CHALLENGE })
    return 'simplejwt 500'
  }
  if (request.path === '/api/jwt/refresh/' && theirs.status === 200 && ours.status !== 200) {
    const userId = peekClaims(refreshOf(request))?.['user_id']
    const active = typeof userId === 'number' ? ACTIVE_USER_IDS.has(userId) : typeof userId === 'string' && /^\d+$/.test(userId) && ACTIVE_USER_IDS.has(Number(userId))
    if (!active) {
      expect({ status: ours.status, body: ours.body, challenge: ours.headers['www-authenticate'] }, `${request.name}: refresh refused for a deleted or inactive user`).toEqual({
        status: 401,
        body: { detail: 'No active account found with the given credentials', code: 'no_active_account' },
        challenge: CHALLENGE,
      })
      return 'refresh of a deleted or inactive user'
    }
  }
  if (request.path === '/api/schemes/jwt/' && theirs.status === 200 && ours.status === 401) {
    const token = /^Bearer\s+(\S+)\s*$/.exec(request.headers?.['Authorization'] ?? '')?.[1]
    const userId = peekClaims(token)?.['user_id']
    if (typeof userId === 'boolean') {
      expect({ body: ours.body, challenge: ours.headers['www-authenticate'] }, `${request.name}: user_id ${String(userId)} is no user`).toEqual({
        body: { detail: 'User not found', code: 'user_not_found' },
        challenge: CHALLENGE,
      })
      return 'user_id that Django coerces'
    }
  }
  return null
}

/** A pair from a server's obtain endpoint. */
async function obtain(baseUrl: string, username: string, password: string): Promise<Pair> {
  const response = await send(baseUrl, 'POST', '/api/jwt/', { 'Content-Type': 'application/json' }, JSON.stringify({ username, password }))
  if (response.status !== 200) throw new Error(`obtain at ${baseUrl} answered ${response.status}: ${response.text}`)
  return response.body as Pair
}

/** The outcome of one exchange in the fixed lists: `null` when as expected, else what to show. */
function checkExchange(request: JwtCase, a: ExchangeResult, b: ExchangeResult): string | null {
  let difference: Improvement | null
  try {
    difference = documentedDifference(request, a, b)
  } catch (error) {
    return `${request.name}\n  ${String(error)}`
  }
  if (difference !== (request.improvement ?? null)) {
    return `${request.name}: expected ${request.improvement ?? 'equal answers'}, got ${difference ?? 'no documented difference'}\n  ours:   ${a.status} ${a.text}\n  oracle: ${b.status} ${b.text.slice(0, 200)}`
  }
  if (difference !== null) return null
  const [x, y] = [comparableJwt(a, request), comparableJwt(b, request)]
  try {
    expect(x).toEqual(y)
    return null
  } catch {
    return `${request.name}\n  ours:   ${JSON.stringify(x)}\n  oracle: ${JSON.stringify(y)}`
  }
}

/**
 * One comparison: the reference API on a fresh `backend` database with the JWT settings of
 * `settings`, beside the shared simplejwt oracle of that database and settings.
 */
function comparison(backend: ReturnType<typeof oracleBackends>[number], settings: OracleSettings): void {
  const label = `${backend.name}${settings === 'rotation' ? ', ROTATE_REFRESH_TOKENS and BLACKLIST_AFTER_ROTATION on' : ''}`
  const missing = backend.available ? simplejwtOracleUnavailable(backend.name) : 'DATABASE_URL is not a postgres:// URL'
  if (missing !== null) console.log(`JWT oracle comparison on ${label} skipped: ${missing}`)

  describe.skipIf(unavailable(`the simplejwt oracle (${missing ?? ''})`, missing === null))(`JWT routes match simplejwt 5.2.2 on ${label}`, () => {
    let ours: RunningReference
    let oracle: RunningSimplejwtOracle
    let pairs: MintedPairs
    const sessions = new Map<string, SessionCookies | null>()

    beforeAll(async () => {
      const jwtSettings = settings === 'rotation' ? { rotateRefreshTokens: true, blacklistAfterRotation: true } : {}
      ;[ours, oracle] = await Promise.all([
        backend.create().then((db) => startReference(db, { jwt: { signingKey: JWT_ORACLE_KEY, ...jwtSettings } })),
        sharedSimplejwtOracle(backend.name, settings),
      ])
      pairs = {
        simplejwt: await obtain(oracle.baseUrl, 'alice', 'alice-pass-1'),
        gatehouse: await obtain(ours.baseUrl, 'alice', 'alice-pass-1'),
        simplejwtBob: await obtain(oracle.baseUrl, 'bob', 'bob-pass-2'),
        gatehouseBob: await obtain(ours.baseUrl, 'bob', 'bob-pass-2'),
      }
    }, 180_000)
    afterAll(async () => {
      await Promise.all([ours?.close(), oracle?.close()])
    })

    /** Sends `request` to gatehouse, then to simplejwt (the same order on both: some change state). */
    async function both(request: ExchangeRequest): Promise<[ExchangeResult, ExchangeResult]> {
      const a = await exchange(ours.baseUrl, request, sessions)
      const b = await exchange(oracle.baseUrl, request, sessions)
      return [a, b]
    }

    if (settings === 'defaults') {
      it('the fixed list: obtain, who-am-I, refresh, verify, blacklist, with tokens from both servers', async () => {
        const cases: JwtCase[] = fixedJwtCases(pairs, await craftedTokens())
        expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length)
        const mismatches: string[] = []
        for (const request of cases) {
          const [a, b] = await both(request)
          const mismatch = checkExchange(request, a, b)
          if (mismatch !== null) mismatches.push(mismatch)
        }
        expect(mismatches.join('\n')).toBe('')
      }, 240_000)
    } else {
      it('rotation: a new refresh token each time, the old one blacklisted, and verify refusing it', async () => {
        const rotated = new Map<string, string>()
        const mismatches: string[] = []
        for (const next of rotationJwtCases(pairs, await craftedTokens(), rotated)) {
          const request = next()
          const [a, b] = await both(request)
          const refresh = (a.body as { refresh?: unknown } | null)?.refresh
          if (typeof refresh === 'string') rotated.set(request.name, refresh)
          const mismatch = checkExchange(request, a, b)
          if (mismatch !== null) mismatches.push(mismatch)
        }
        expect(mismatches.join('\n')).toBe('')
      }, 240_000)
    }

    it(`${RUNS} generated requests (seed ${SEED})`, async () => {
      console.log(`JWT oracle comparison on ${label}: seed ${SEED}, ${RUNS} requests (JWT_ORACLE_SEED, JWT_ORACLE_RUNS)`)
      const good = [pairs.simplejwt, pairs.gatehouse].flatMap((p) => [p.access, p.refresh])
      // With BLACKLIST_AFTER_ROTATION, simplejwt blacklists a deleted or inactive user's refresh
      // token where gatehouse refuses it first (the documented difference): later answers for that
      // token would differ by consequence, so the rotation run draws no such tokens.
      const crafted = Object.entries(await craftedTokens()).filter(([name]) => settings === 'defaults' || !/^(deleted-user|inactive-user|user_id "abc") refresh$/.test(name))
      const pool = { good, others: crafted.map(([, token]) => token) }
      const counted = new Map<string, number>()
      const statuses = new Map<string, number>()
      await fc.assert(
        fc.asyncProperty(generatedJwtRequest(pool), async (request) => {
          const [a, b] = await both(request)
          const seen = `${request.method} ${request.path} ${b.status}`
          statuses.set(seen, (statuses.get(seen) ?? 0) + 1)
          const difference = documentedDifference(request, a, b)
          if (difference !== null) {
            counted.set(difference, (counted.get(difference) ?? 0) + 1)
            return
          }
          expect(comparableJwt(a, request), request.name).toEqual(comparableJwt(b, request))
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      console.log(`simplejwt's answers: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`)
      console.log(`documented differences seen: ${JSON.stringify(Object.fromEntries(counted))}`)
    }, 300_000)
  })
}

for (const backend of oracleBackends()) comparison(backend, 'defaults')
// The rotation settings change the views, not the stores: SQLite is enough for them.
for (const backend of oracleBackends().filter((b) => b.name === 'sqlite')) comparison(backend, 'rotation')
