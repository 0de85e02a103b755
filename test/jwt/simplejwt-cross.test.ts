import { CompactSign } from 'jose'
import { describe, expect, it } from 'vitest'
import { simplejwt, type SimplejwtAnswer, type SimplejwtJob } from './simplejwt.js'
import { JwtCodec, TokenError, accessPayloadFrom, refreshPayloadFor, resolveJwtSettings, type StoredUser } from 'gatehouse'

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
