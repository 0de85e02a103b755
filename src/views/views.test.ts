// The view factories used directly (no server): options an app would set, with small
// in-memory stores standing in for the Kysely ones.
import { describe, expect, it } from 'vitest'
import { csrfSecretOf } from '../authentication/csrf.js'
import { SessionAuthentication } from '../authentication/session-authentication.js'
import type { ApiRequest } from '../core/api-request.js'
import type { ApiResponse } from '../core/api-response.js'
import { createApi } from '../core/api.js'
import { AuthenticationFailed } from '../core/errors.js'
import { createApiRequest } from '../core/request/request-factory.js'
import type { StoredUser } from '../core/user.js'
import type { SessionRecord, SessionStore } from '../stores/session-store.js'
import type { TokenRecord } from '../stores/token-store.js'
import type { Throttle } from '../throttling/throttle.js'
import { csrfView } from './csrf-view.js'
import { loginView } from './login-view.js'
import { logoutView } from './logout-view.js'
import { obtainAuthTokenView, userIdAndUsername } from './obtain-auth-token.js'
import { newSessionKey, resolveSessionCookies } from './session-cookies.js'

const BOB: StoredUser = Object.freeze({ id: 2, username: 'bob', isActive: true, isStaff: false, isAuthenticated: true })

const users = {
  authenticate: async (username: string, password: string): Promise<StoredUser | null> =>
    username === 'bob' && password === 'pw' ? BOB : null,
  findById: async (id: number): Promise<StoredUser | null> => (id === BOB.id ? BOB : null),
}

function tokenStore(): { getOrCreate(userId: number): Promise<TokenRecord>; created: number } {
  const keys = new Map<number, TokenRecord>()
  const store = {
    created: 0,
    async getOrCreate(userId: number): Promise<TokenRecord> {
      let token = keys.get(userId)
      if (token === undefined) {
        store.created++
        token = { key: 'k'.repeat(40), userId, created: new Date() }
        keys.set(userId, token)
      }
      return token
    },
  }
  return store
}

function sessionStore(): SessionStore & { rows: Map<string, SessionRecord> } {
  const rows = new Map<string, SessionRecord>()
  return {
    rows,
    get: async (key) => rows.get(key) ?? null,
    save: async (key, record) => void rows.set(key, record),
    delete: async (key) => void rows.delete(key),
  }
}

function request(method: string, url: string, headers: Record<string, string> = {}, body?: string): ApiRequest {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  return createApiRequest({
    method,
    url: new URL(url),
    headers: { get: (name) => lower[name.toLowerCase()] ?? null },
    remoteAddress: '127.0.0.1',
    readBody: async () => (body === undefined ? null : new TextEncoder().encode(body)),
  })
}

function json(body: unknown): { 'content-type': string; 'content-length': string } {
  return { 'content-type': 'application/json', 'content-length': String(JSON.stringify(body).length) }
}

function cookies(response: ApiResponse): string[] {
  return response.headers.filter(([name]) => name.toLowerCase() === 'set-cookie').map(([, value]) => value)
}

function cookieValue(response: ApiResponse, name: string): string | undefined {
  return cookies(response)
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1)
}

describe('obtainAuthTokenView', () => {
  const creds = { username: 'bob', password: 'pw' }

  it('answers the token and adds extra fields after it, never replacing it', async () => {
    const api = createApi()
    const view = api.view(
      obtainAuthTokenView({
        users,
        tokens: tokenStore(),
        extraFields: (user) => ({ ...userIdAndUsername(user), token: 'forged' }),
      }),
    )
    const response = await view.handle(request('POST', 'http://h/t/', json(creds), JSON.stringify(creds)))
    expect(response.status).toBe(200)
    expect(JSON.stringify(response.body)).toBe(`{"token":"${'k'.repeat(40)}","user_id":2,"username":"bob"}`)
  })

  it('ignores the global throttles and permissions unless given its own', async () => {
    const refuse: Throttle = { check: async () => ({ allowed: false, waitSeconds: 7 }) }
    const denyAll = { hasPermission: () => false }
    const api = createApi({ throttles: [refuse], permissions: [denyAll] })
    const tokens = tokenStore()
    const open = api.view(obtainAuthTokenView({ users, tokens }))
    expect((await open.handle(request('POST', 'http://h/t/', json(creds), JSON.stringify(creds)))).status).toBe(200)

    let scope: string | null = null
    const scoped: Throttle = {
      check: async (ctx) => {
        scope = ctx.view.throttleScope
        return { allowed: false, waitSeconds: 3 }
      },
    }
    const throttled = api.view(obtainAuthTokenView({ users, tokens, throttles: [scoped], throttleScope: 'login' }))
    const response = await throttled.handle(request('POST', 'http://h/t/', json(creds), JSON.stringify(creds)))
    expect(response.status).toBe(429)
    expect(response.headers).toContainEqual(['Retry-After', '3'])
    expect(scope).toBe('login')
    // The throttle runs before the handler: no token was created for the refused request.
    expect(tokens.created).toBe(1)
  })

  it('uses the schemes it is given instead of the global ones', async () => {
    const failing = {
      authenticate: async (): Promise<never> => {
        throw new AuthenticationFailed('nope')
      },
    }
    const api = createApi({ authentication: [failing] })
    const body = JSON.stringify(creds)
    const inherited = api.view(obtainAuthTokenView({ users, tokens: tokenStore() }))
    expect((await inherited.handle(request('POST', 'http://h/', json(creds), body))).status).toBe(403)
    const own = api.view(obtainAuthTokenView({ users, tokens: tokenStore(), authentication: [] }))
    expect((await own.handle(request('POST', 'http://h/', json(creds), body))).status).toBe(200)
  })
})

describe('session views', () => {
  it('mark the cookies Secure on https, and not on http', async () => {
    const api = createApi()
    const csrf = api.view(csrfView())
    const plain = cookies(await csrf.handle(request('GET', 'http://h/csrf/')))
    expect(plain[0]).not.toMatch(/Secure/i)
    const secure = await csrf.handle(request('GET', 'https://h/csrf/'))
    expect(cookies(secure)[0]).toMatch(/; Secure/)

    const secret = cookieValue(secure, 'csrftoken') ?? ''
    const sessions = sessionStore()
    const login = api.view(loginView({ users, sessions }))
    const body = JSON.stringify({ username: 'bob', password: 'pw' })
    const response = await login.handle(
      request('POST', 'https://h/login/', {
        ...json({ username: 'bob', password: 'pw' }),
        cookie: `csrftoken=${secret}`,
        'x-csrftoken': secret,
        referer: 'https://h/page',
      }, body),
    )
    expect(response.status).toBe(200)
    for (const line of cookies(response)) expect(line).toMatch(/; Secure/)
    const forced = api.view(csrfView({ secure: true }))
    expect(cookies(await forced.handle(request('GET', 'http://h/csrf/')))[0]).toMatch(/; Secure/)
  })

  it('on https, login refuses a request without a same-origin Referer (Django\'s rule)', async () => {
    const api = createApi()
    const login = api.view(loginView({ users, sessions: sessionStore() }))
    const secret = 'a'.repeat(32)
    const body = JSON.stringify({ username: 'bob', password: 'pw' })
    const response = await login.handle(
      request('POST', 'https://h/login/', { ...json({}), cookie: `csrftoken=${secret}`, 'x-csrftoken': secret }, body),
    )
    expect(response.status).toBe(403)
    expect(response.body).toEqual({ detail: 'CSRF Failed: Referer checking failed - no Referer.' })
  })

  it('share custom cookie names with SessionAuthentication', async () => {
    const sessions = sessionStore()
    const scheme = new SessionAuthentication({
      sessions,
      users,
      cookieName: 'sid',
      csrf: { cookieName: 'xsrf', headerName: 'X-XSRF-Token' },
    })
    const api = createApi({ authentication: [scheme] })
    const shared = { cookieName: scheme.cookieName, csrf: scheme.csrf, maxAge: 60 }
    const csrfResponse = await api.view(csrfView(shared)).handle(request('GET', 'http://h/csrf/'))
    const secret = cookieValue(csrfResponse, 'xsrf') ?? ''
    expect(secret).toMatch(/^[A-Za-z0-9]{32}$/)
    expect(csrfSecretOf((csrfResponse.body as { csrfToken: string }).csrfToken)).toBe(secret)

    const body = JSON.stringify({ username: 'bob', password: 'pw' })
    const loginResponse = await api
      .view(loginView({ users, sessions, ...shared }))
      .handle(request('POST', 'http://h/login/', { ...json({}), cookie: `xsrf=${secret}`, 'x-xsrf-token': secret }, body))
    expect(loginResponse.status).toBe(200)
    const sid = cookieValue(loginResponse, 'sid') ?? ''
    expect(cookies(loginResponse).find((c) => c.startsWith('sid='))).toMatch(/Max-Age=60;/)
    expect(sessions.rows.get(sid)?.userId).toBe(2)

    const rotated = cookieValue(loginResponse, 'xsrf') ?? ''
    const logout = api.view(logoutView({ sessions, cookieName: 'sid' }))
    const refused = await logout.handle(request('POST', 'http://h/logout/', { cookie: `sid=${sid}; xsrf=${rotated}` }))
    expect(refused.status).toBe(403)
    const out = await logout.handle(
      request('POST', 'http://h/logout/', { cookie: `sid=${sid}; xsrf=${rotated}`, 'x-xsrf-token': rotated }),
    )
    expect(out.status).toBe(204)
    expect(out.body).toBeUndefined()
    expect(cookies(out)[0]).toBe('sid=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; SameSite=Lax')
    expect(sessions.rows.has(sid)).toBe(false)
  })

  it('login keeps the global throttles unless given its own', async () => {
    const refuse: Throttle = { check: async () => ({ allowed: false, waitSeconds: null }) }
    const api = createApi({ throttles: [refuse] })
    const secret = 'a'.repeat(32)
    const req = (): ApiRequest =>
      request('POST', 'http://h/login/', { ...json({}), cookie: `csrftoken=${secret}`, 'x-csrftoken': secret }, '{"username":"bob","password":"pw"}')
    expect((await api.view(loginView({ users, sessions: sessionStore() })).handle(req())).status).toBe(429)
    expect((await api.view(loginView({ users, sessions: sessionStore(), throttles: [] })).handle(req())).status).toBe(200)
  })

  it('refuse bad cookie lifetimes when the view is built', () => {
    expect(() => resolveSessionCookies({ maxAge: 0 })).toThrow(RangeError)
    expect(() => resolveSessionCookies({ csrfMaxAge: 1.5 })).toThrow(RangeError)
  })
})

describe('newSessionKey', () => {
  it('makes 32 characters over [a-z0-9], different every time', () => {
    const keys = new Set(Array.from({ length: 200 }, () => newSessionKey()))
    expect(keys.size).toBe(200)
    for (const key of keys) expect(key).toMatch(/^[a-z0-9]{32}$/)
  })
})
