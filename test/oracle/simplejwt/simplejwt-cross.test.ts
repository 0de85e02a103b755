import { generateKeyPairSync } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CompactSign } from 'jose'
import { describe, expect, it } from 'vitest'
import { simplejwt, type SimplejwtAnswer, type SimplejwtJob } from './simplejwt.js'
import { AuthenticationFailed, createApi, route, type StoredUser } from 'drf-gatehouse'
import { JWTAuthentication, JwtCodec, TokenError, accessPayloadFrom, jwksView, jwtRefreshSlidingView, refreshPayloadFor, resolveJwtSettings, slidingPayloadFor } from 'drf-gatehouse/jwt'
import { buildRequest } from '../../helpers/build-request.js'
import { router } from 'drf-gatehouse/node'

/**
 * The real simplejwt 5.2.2 (Debian's python3-djangorestframework-simplejwt, .ci/run installs it)
 * against gatehouse's codec, both ways, with one key: tokens cross, and every kind of bad token
 * gets simplejwt's own message.
 */
const KEY = 'django-insecure-cross-test-key-0123456789abcdef'
const codec = new JwtCodec(resolveJwtSettings({ signingKey: KEY }))
type Answer = SimplejwtAnswer
type Job = SimplejwtJob
const run = (jobs: readonly Job[]): Promise<Answer[]> => simplejwt(KEY, jobs)
/** The jobs under other `SIMPLE_JWT` settings (same `SECRET_KEY`). */
const run2 = (settings: Readonly<Record<string, unknown>>, jobs: readonly Job[]): Promise<Answer[]> => simplejwt(KEY, jobs, settings)

/** gatehouse's answer for a token, in the script's shape. */
async function gatehouse(token: string, cls: 'access' | 'refresh' | 'untyped'): Promise<Answer> {
  try {
    return { payload: { ...(await codec.decode(token, cls === 'untyped' ? null : cls)) } }
  } catch (error) {
    if (error instanceof TokenError) return { error: error.message }
    throw error
  }
}

const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
const now = (): number => Math.floor(Date.now() / 1000)
function sign(payload: unknown, key = KEY, alg = 'HS256'): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(key))
}
const claims = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ token_type: 'access', exp: now() + 300, iat: now(), jti: 'a'.repeat(32), user_id: 7, ...over })
const user: StoredUser = { id: 7, username: 'ana', isActive: true, isStaff: false, isAuthenticated: true }

describe('simplejwt 5.2.2 ↔ gatehouse', () => {
  it('a pair minted by RefreshToken.for_user is accepted by gatehouse, claims and all', async () => {
    const [pair] = await run([{ op: 'mint', user_id: 7 }])
    const access = await codec.decode(pair?.access ?? '', 'access')
    const refresh = await codec.decode(pair?.refresh ?? '', 'refresh')
    expect(access['user_id']).toBe(7)
    expect(Object.keys(access)).toEqual(['token_type', 'exp', 'iat', 'jti', 'user_id'])
    expect(access['iat']).toBe(refresh['iat'])
    expect(refresh['exp']).toBe((refresh['iat'] as number) + 86400)
    expect(access['exp']).toBe((refresh['iat'] as number) + 300)
  }, 60_000)

  it('a pair minted by gatehouse validates with AccessToken/RefreshToken/UntypedToken', async () => {
    const t = codec.currentTime()
    const refreshPayload = refreshPayloadFor(codec, user, t)
    const accessPayload = accessPayloadFrom(codec, refreshPayload, t)
    const [refresh, access] = [await codec.encode(refreshPayload), await codec.encode(accessPayload)]
    const answers = await run([
      { op: 'check', token: access, class: 'access' },
      { op: 'check', token: refresh, class: 'refresh' },
      { op: 'check', token: access, class: 'untyped' },
      { op: 'check', token: refresh, class: 'access' },
    ])
    expect(answers[0]).toEqual({ payload: accessPayload })
    expect(answers[1]).toEqual({ payload: refreshPayload })
    expect(answers[2]).toEqual({ payload: accessPayload })
    expect(answers[3]).toEqual({ error: 'Token has wrong type' })
    // The same header bytes as PyJWT writes.
    expect(access.split('.')[0]).toBe(b64({ alg: 'HS256', typ: 'JWT' }))
  }, 60_000)

  it('every bad token gets the same message from both (where simplejwt answers at all)', async () => {
    const good = await sign(claims())
    const [h, p, s] = good.split('.') as [string, string, string]
    const cases: [string, string][] = [
      ['valid', good],
      ['expired', await sign(claims({ exp: now() - 10 }))],
      ['future iat', await sign(claims({ iat: now() + 3600 }))],
      ['future nbf', await sign(claims({ nbf: now() + 3600 }))],
      ['no exp', await sign(claims({ exp: undefined }))],
      ['no jti', await sign(claims({ jti: undefined }))],
      ['no type', await sign(claims({ token_type: undefined }))],
      ['refresh type', await sign(claims({ token_type: 'refresh' }))],
      ['sliding type', await sign(claims({ token_type: 'sliding' }))],
      ['other key', await sign(claims(), 'another-key-another-key-another-key')],
      ['HS512', await sign(claims(), KEY, 'HS512')],
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`],
      ['no alg', `${b64({ typ: 'JWT' })}.${p}.${s}`],
      ['tampered payload', `${h}.${b64(claims({ user_id: 1 }))}.${s}`],
      ['tampered signature', `${h}.${p}.${s.slice(0, -2)}AA`],
      ['two segments', `${h}.${p}`],
      ['four segments', `${good}.x`],
      ['garbage', 'not-a-token'],
      ['empty segments', '..'],
      ['payload is a list', await sign([1, 2])],
      ['payload is a number', await sign(5)],
      ['exp is text', await sign(claims({ exp: 'soon' }))],
      ['iat is text', await sign(claims({ iat: 'then' }))],
      ['header not JSON', `${b64('{')}.${p}.${s}`],
      ['payload not JSON', `${h}.${b64('{')}.${s}`],
    ]
    const classes = ['access', 'refresh', 'untyped'] as const
    const jobs: Job[] = cases.flatMap(([, token]) => classes.map((cls) => ({ op: 'check' as const, token, class: cls })))
    const theirs = await run(jobs)
    const differences: string[] = []
    let i = 0
    for (const [name, token] of cases) {
      for (const cls of classes) {
        const their = theirs[i++] ?? {}
        const ours = await gatehouse(token, cls)
        // simplejwt crashing (a 500 on the wire) is where gatehouse answers a 401 instead.
        if (their.crash !== undefined) {
          expect(ours.error, `${name} as ${cls}`).toBeDefined()
          continue
        }
        if (JSON.stringify(their) !== JSON.stringify(ours)) differences.push(`${name} as ${cls}: simplejwt ${JSON.stringify(their)}, gatehouse ${JSON.stringify(ours)}`)
      }
    }
    expect(differences).toEqual([])
  }, 60_000)
})

/** A key pair in PEM, as a Django settings file holds SIGNING_KEY and VERIFYING_KEY. */
function keyPair(algorithm: 'RS256' | 'ES256'): { privateKey: string; publicKey: string } {
  const publicKeyEncoding = { type: 'spki', format: 'pem' } as const
  const privateKeyEncoding = { type: 'pkcs8', format: 'pem' } as const
  return algorithm === 'RS256'
    ? generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding, privateKeyEncoding })
    : generateKeyPairSync('ec', { namedCurve: 'prime256v1', publicKeyEncoding, privateKeyEncoding })
}

describe.each(['RS256', 'ES256'] as const)('simplejwt 5.2.2 ↔ gatehouse with %s (SIGNING_KEY private, VERIFYING_KEY public)', (algorithm) => {
  const pair = keyPair(algorithm)
  const stranger = keyPair(algorithm)
  const theirSettings = { ALGORITHM: algorithm, SIGNING_KEY: pair.privateKey, VERIFYING_KEY: pair.publicKey }
  const issuer = new JwtCodec(resolveJwtSettings({ algorithm, signingKey: pair.privateKey }))
  // A resource server: the public key only.
  const verifier = new JwtCodec(resolveJwtSettings({ algorithm, verifyingKey: pair.publicKey }))

  it('a pair minted by simplejwt verifies in gatehouse with the public key alone', async () => {
    const [minted] = await simplejwt(KEY, [{ op: 'mint', user_id: 7 }], theirSettings)
    const access = await verifier.decode(minted?.access ?? '', 'access')
    expect(access['user_id']).toBe(7)
    expect((await verifier.decode(minted?.refresh ?? '', 'refresh'))['iat']).toBe(access['iat'])
    await expect(verifier.decode(minted?.refresh ?? '', 'access')).rejects.toThrow('Token has wrong type')
  }, 60_000)

  it('a pair minted by gatehouse (kid in the header) verifies in simplejwt; another key or HS256 fails the same in both', async () => {
    const t = issuer.currentTime()
    const refreshPayload = refreshPayloadFor(issuer, user, t)
    const accessPayload = accessPayloadFrom(issuer, refreshPayload, t)
    const access = await issuer.encode(accessPayload)
    const forged = await new JwtCodec(resolveJwtSettings({ algorithm, signingKey: stranger.privateKey })).encode(accessPayload)
    const hmac = await sign(accessPayload, pair.publicKey)
    const answers = await run2(theirSettings, [
      { op: 'check', token: access, class: 'access' },
      { op: 'check', token: await issuer.encode(refreshPayload), class: 'refresh' },
      { op: 'check', token: forged, class: 'access' },
      { op: 'check', token: hmac, class: 'access' },
    ])
    expect(answers[0]).toEqual({ payload: accessPayload })
    expect(answers[1]).toEqual({ payload: refreshPayload })
    for (const [i, token] of [[2, forged], [3, hmac]] as const) {
      expect(answers[i]).toEqual({ error: 'Token is invalid or expired' })
      await expect(verifier.decode(token, 'access')).rejects.toThrow('Token is invalid or expired')
    }
  }, 60_000)

  it("simplejwt's JWK_URL pointed at gatehouse's jwksView verifies gatehouse's tokens; both refuse a token without kid there", async () => {
    const api = createApi({ allowedHosts: ['127.0.0.1'] })
    const server = createServer(router([route('/jwks/', api.view(jwksView({ codec: issuer })))]))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks/`
      const t = issuer.currentTime()
      const accessPayload = accessPayloadFrom(issuer, refreshPayloadFor(issuer, user, t), t)
      const [theirMint] = await simplejwt(KEY, [{ op: 'mint', user_id: 7 }], theirSettings)
      const kidless = theirMint?.access ?? ''
      const answers = await run2({ ALGORITHM: algorithm, JWK_URL: url }, [
        { op: 'check', token: await issuer.encode(accessPayload), class: 'access' },
        { op: 'check', token: kidless, class: 'access' },
      ])
      expect(answers[0]).toEqual({ payload: accessPayload })
      expect(answers[1]).toEqual({ error: 'Token is invalid or expired' })
      const viaUrl = new JwtCodec(resolveJwtSettings({ algorithm, jwkUrl: url, allowInsecureJwkUrl: true }))
      expect(await viaUrl.decode(await issuer.encode(accessPayload), 'access')).toEqual(accessPayload)
      await expect(viaUrl.decode(kidless, 'access')).rejects.toThrow('Token is invalid or expired')
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }, 60_000)
})

describe('simplejwt 5.2.2 ↔ gatehouse with AUDIENCE, ISSUER and LEEWAY', () => {
  // A leeway of an hour: the within/past cases stay on their side however long Python takes to start on a busy machine.
  const theirs = { AUDIENCE: 'mobile', ISSUER: 'https://auth.example', LEEWAY: 3600 }
  const ours = new JwtCodec(resolveJwtSettings({ signingKey: KEY, audience: 'mobile', issuer: 'https://auth.example', leeway: 3600 }))

  it('tokens cross both ways with aud and iss; a wrong or missing one, and exp past the leeway, fail in both; exp within it passes in both', async () => {
    const [minted] = await simplejwt(KEY, [{ op: 'mint', user_id: 7 }], theirs)
    const access = await ours.decode(minted?.access ?? '', 'access')
    expect(access).toMatchObject({ aud: 'mobile', iss: 'https://auth.example', user_id: 7 })
    const cases: [string, string][] = [
      ['ours', await ours.encode(claims())],
      ['other audience', await sign(claims({ aud: 'web', iss: 'https://auth.example' }))],
      ['audience in a list', await sign(claims({ aud: ['web', 'mobile'], iss: 'https://auth.example' }))],
      ['no audience', await sign(claims({ iss: 'https://auth.example' }))],
      ['other issuer', await sign(claims({ aud: 'mobile', iss: 'https://evil.example' }))],
      ['no issuer', await sign(claims({ aud: 'mobile' }))],
      ['expired 10 min ago (within the leeway)', await sign(claims({ aud: 'mobile', iss: 'https://auth.example', exp: now() - 600 }))],
      ['expired 2 h ago', await sign(claims({ aud: 'mobile', iss: 'https://auth.example', exp: now() - 7200 }))],
      ['iat 10 min ahead (within the leeway)', await sign(claims({ aud: 'mobile', iss: 'https://auth.example', iat: now() + 600 }))],
    ]
    const answers = await run2(theirs, cases.map(([, token]) => ({ op: 'check' as const, token, class: 'access' as const })))
    const differences: string[] = []
    for (const [i, [name, token]] of cases.entries()) {
      let mine: Answer
      try {
        mine = { payload: { ...(await ours.decode(token, 'access')) } }
      } catch (error) {
        if (!(error instanceof TokenError)) throw error
        mine = { error: error.message }
      }
      if (JSON.stringify(answers[i]) !== JSON.stringify(mine)) differences.push(`${name}: simplejwt ${JSON.stringify(answers[i])}, gatehouse ${JSON.stringify(mine)}`)
    }
    expect(differences).toEqual([])
    // Not vacuous: some pass and some fail.
    expect(answers.filter((a) => a.payload !== undefined).length).toBeGreaterThanOrEqual(3)
    expect(answers.filter((a) => a.error !== undefined).length).toBeGreaterThanOrEqual(4)
  }, 60_000)
})

describe('simplejwt 5.2.2 ↔ gatehouse: sliding tokens', () => {
  // Short lifetimes, so exp and refresh_exp show as different numbers; AUTH_TOKEN_CLASSES with both.
  const theirs = {
    SLIDING_TOKEN_LIFETIME: 120,
    SLIDING_TOKEN_REFRESH_LIFETIME: 3600,
    AUTH_TOKEN_CLASSES: ['rest_framework_simplejwt.tokens.AccessToken', 'rest_framework_simplejwt.tokens.SlidingToken'],
  }
  const sliding = new JwtCodec(resolveJwtSettings({ signingKey: KEY, slidingTokenLifetime: 120, slidingTokenRefreshLifetime: 3600, authTokenClasses: ['AccessToken', 'SlidingToken'] }))
  const users = { findById: (id: unknown) => Promise.resolve(id === 7 ? user : null) }
  const refreshView = createApi().view(jwtRefreshSlidingView({ codec: sliding, users }))
  const scheme = new JWTAuthentication({ codec: sliding, users })
  const accessOnly = new JWTAuthentication({ codec, users })

  /** gatehouse's jwtRefreshSlidingView, in the script's shape. */
  async function ourRefresh(token: string): Promise<Answer> {
    const response = await refreshView.handle(buildRequest({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) }))
    const body = response.body as Record<string, string>
    if (response.status === 200) return { token: body['token'] ?? '' }
    expect(response.status).toBe(401)
    expect(body['code']).toBe('token_not_valid')
    return { error: body['detail'] ?? '' }
  }
  /** gatehouse's JWTAuthentication, in the script's shape. */
  async function ourAuthentication(token: string, s: JWTAuthentication = scheme): Promise<Answer> {
    try {
      const done = await s.authenticate(buildRequest({ headers: { Authorization: `Bearer ${token}` } }))
      return { payload: { ...(done?.auth as Record<string, unknown>) } }
    } catch (error) {
      if (!(error instanceof AuthenticationFailed)) throw error
      return { invalid: error.detail as Answer['invalid'] & object }
    }
  }

  it('a sliding token minted by SlidingToken.for_user authenticates in gatehouse and refreshes there; simplejwt takes the refreshed one', async () => {
    const [minted] = await simplejwt(KEY, [{ op: 'mint_sliding', user_id: 7 }], theirs)
    const token = minted?.token ?? ''
    const claims = await sliding.decode(token, 'sliding')
    expect(Object.keys(claims)).toEqual(['token_type', 'exp', 'iat', 'jti', 'refresh_exp', 'user_id'])
    expect(claims).toMatchObject({ token_type: 'sliding', user_id: 7, exp: (claims['iat'] as number) + 120, refresh_exp: (claims['iat'] as number) + 3600 })
    expect(await ourAuthentication(token)).toEqual({ payload: claims })
    const refreshed = await ourRefresh(token)
    const fresh = await sliding.decode(refreshed.token ?? '', 'sliding')
    expect(Object.keys(fresh)).toEqual(Object.keys(claims))
    expect(fresh).toMatchObject({ jti: claims['jti'], refresh_exp: claims['refresh_exp'], exp: (fresh['iat'] as number) + 120 })
    const [check, auth] = await simplejwt(KEY, [{ op: 'check', token: refreshed.token ?? '', class: 'sliding' }, { op: 'authenticate', token: refreshed.token ?? '' }], theirs)
    expect(check).toEqual({ payload: fresh })
    expect(auth).toEqual({ payload: fresh })
  }, 180_000)

  it('a sliding token minted by gatehouse validates as SlidingToken, authenticates and refreshes in simplejwt; gatehouse takes the refreshed one', async () => {
    const payload = slidingPayloadFor(sliding, user, sliding.currentTime())
    const token = await sliding.encode(payload)
    const answers = await simplejwt(KEY, [
      { op: 'check', token, class: 'sliding' },
      { op: 'authenticate', token },
      { op: 'refresh_sliding', token },
      { op: 'check', token, class: 'access' },
      { op: 'check', token, class: 'untyped' },
    ], theirs)
    expect(answers[0]).toEqual({ payload })
    expect(answers[1]).toEqual({ payload })
    expect(answers[3]).toEqual({ error: 'Token has wrong type' })
    expect(answers[4]).toEqual({ payload })
    const theirRefreshed = answers[2]?.token ?? ''
    const fresh = await sliding.decode(theirRefreshed, 'sliding')
    expect(Object.keys(fresh)).toEqual(Object.keys(payload))
    expect(fresh).toMatchObject({ jti: payload['jti'], refresh_exp: payload['refresh_exp'] })
    expect(await ourAuthentication(theirRefreshed)).toEqual({ payload: fresh })
    // The same header and claim bytes as simplejwt would write for these claims.
    expect(token.split('.')[0]).toBe(b64({ alg: 'HS256', typ: 'JWT' }))
    expect(token.split('.')[1]).toBe(b64(payload))
  }, 180_000)

  it('every bad sliding token gets the same refresh message and the same JWTAuthentication answer from both', async () => {
    const t = now()
    const base = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ token_type: 'sliding', exp: t + 120, iat: t, jti: 'b'.repeat(32), refresh_exp: t + 3600, user_id: 7, ...over })
    const cases: [string, string][] = [
      ['valid', await sign(base())],
      ['expired, refresh_exp ahead', await sign(base({ exp: t - 10 }))],
      ['refresh_exp passed', await sign(base({ refresh_exp: t - 10 }))],
      ['no refresh_exp', await sign(base({ refresh_exp: undefined }))],
      ['refresh_exp is text', await sign(base({ refresh_exp: 'later' }))],
      ['no jti', await sign(base({ jti: undefined }))],
      ['no type', await sign(base({ token_type: undefined }))],
      ['access type', await sign(base({ token_type: 'access' }))],
      ['refresh type', await sign(base({ token_type: 'refresh' }))],
      ['other key', await sign(base(), 'another-key-another-key-another-key')],
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(base())}.`],
      ['garbage', 'not-a-token'],
      ['an access token', await sign(claims())],
    ]
    const theirAnswers = await simplejwt(KEY, cases.flatMap(([, token]) => [{ op: 'refresh_sliding' as const, token }, { op: 'authenticate' as const, token }]), theirs)
    // AccessToken alone (simplejwt's default): a sliding token is refused with one message.
    const [theirDefault] = await simplejwt(KEY, [{ op: 'authenticate', token: cases[0]?.[1] ?? '' }])
    const differences: string[] = []
    let i = 0
    for (const [name, token] of cases) {
      const refreshed = theirAnswers[i++] ?? {}
      const authenticated = theirAnswers[i++] ?? {}
      const ours = await ourRefresh(token)
      if (refreshed.crash !== undefined) expect(ours.error, `${name}: refresh`).toBeDefined()
      else if (refreshed.token !== undefined) {
        if (ours.token === undefined) differences.push(`${name}: refresh: simplejwt refreshed, gatehouse ${JSON.stringify(ours)}`)
      } else if (JSON.stringify(refreshed) !== JSON.stringify(ours)) differences.push(`${name}: refresh: simplejwt ${JSON.stringify(refreshed)}, gatehouse ${JSON.stringify(ours)}`)
      const mine = await ourAuthentication(token)
      if (authenticated.crash !== undefined) expect(mine.invalid, `${name}: authenticate`).toBeDefined()
      else if (JSON.stringify(authenticated) !== JSON.stringify(mine)) differences.push(`${name}: authenticate: simplejwt ${JSON.stringify(authenticated)}, gatehouse ${JSON.stringify(mine)}`)
    }
    expect(differences).toEqual([])
    expect(theirDefault).toEqual(await ourAuthentication(cases[0]?.[1] ?? '', accessOnly))
    expect(theirDefault?.invalid?.messages).toEqual([{ token_class: 'AccessToken', token_type: 'access', message: 'Token has wrong type' }])
    // Not vacuous: both kinds of answer, and both refresh_exp messages, occur.
    const texts = JSON.stringify(theirAnswers)
    for (const expected of ["Token 'refresh_exp' claim has expired", "Token has no 'refresh_exp' claim", 'Token has wrong type', 'Token is invalid or expired']) expect(texts).toContain(expected)
    expect(theirAnswers.filter((a) => a.token !== undefined).length).toBeGreaterThanOrEqual(1)
  }, 180_000)
})
