// sessionLogin, Django's get_token / login / logout for pages of your own, on an in-memory store.
import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { csrfSecretOf } from '../authentication/csrf.js'
import { SESSION_AUTH_HASH_KEY } from '../authentication/session-auth-hash.js'
import type { SessionRecord } from '../stores/session-store.js'
import { sessionLogin } from './session-login.js'

const SECRET = 'abcdefghijklmnopqrstuvwxyzABCDEF'

function setup(): { saved: Map<string, SessionRecord>; deleted: string[]; login: ReturnType<typeof sessionLogin> } {
  const saved = new Map<string, SessionRecord>()
  const deleted: string[] = []
  const sessions = { save: async (key: string, record: SessionRecord) => void saved.set(key, record), delete: async (key: string) => void deleted.push(key) }
  const users = { sessionAuthHash: async (id: number | string) => `hash-of-${String(id)}` }
  return { saved, deleted, login: sessionLogin({ users, sessions, csrf: { cookieName: 'csrf' }, cookieName: 'sid' }) }
}

const cookie = (headers: readonly (readonly [string, string])[], name: string): string | undefined =>
  headers.find(([header, value]) => header === 'Set-Cookie' && value.startsWith(`${name}=`))?.[1].slice(name.length + 1).split(';')[0]

describe('sessionLogin', () => {
  it("csrfToken: a masked token of the request's secret and no cookie; without a valid secret, a new one and its cookie", () => {
    const { login } = setup()
    const kept = login.csrfToken(buildRequest({ headers: { cookie: `csrf=${SECRET}` } }))
    expect(kept.headers).toEqual([])
    expect(kept.token).toHaveLength(64)
    expect(csrfSecretOf(kept.token)).toBe(SECRET)
    const fresh = login.csrfToken(buildRequest({ headers: { cookie: 'csrf=not-a-secret' } }))
    const secret = cookie(fresh.headers, 'csrf')
    expect(secret).toMatch(/^[A-Za-z0-9]{32}$/)
    expect(csrfSecretOf(fresh.token)).toBe(secret)
  })

  it("login: the request's session deleted, a new one saved with the user's session auth hash, a new CSRF secret then the session cookie", async () => {
    const { saved, deleted, login } = setup()
    const headers = await login.login(buildRequest({ headers: { cookie: `sid=planted; csrf=${SECRET}` } }), 7)
    expect(deleted).toEqual(['planted'])
    expect(headers.map(([, value]) => value.split('=')[0])).toEqual(['csrf', 'sid'])
    expect(cookie(headers, 'csrf')).not.toBe(SECRET)
    const key = cookie(headers, 'sid') ?? ''
    expect(key).toMatch(/^[a-z0-9]{32}$/)
    expect(saved.get(key)).toMatchObject({ userId: 7, data: { [SESSION_AUTH_HASH_KEY]: 'hash-of-7' } })
  })

  it('logout: deletes the session the request names and drops its cookie; without one deletes nothing', async () => {
    const { deleted, login } = setup()
    const headers = await login.logout(buildRequest({ headers: { cookie: 'sid=abc' } }))
    expect(deleted).toEqual(['abc'])
    expect(headers).toHaveLength(1)
    expect(headers[0]?.[1]).toMatch(/^sid=""; .*Max-Age=0/)
    await login.logout(buildRequest())
    expect(deleted).toEqual(['abc'])
  })

  it('checks the cookie options once, when it is made', () => {
    expect(() => sessionLogin({ users: {}, sessions: { save: async () => undefined, delete: async () => undefined }, maxAge: 0 })).toThrow(RangeError)
  })
})
