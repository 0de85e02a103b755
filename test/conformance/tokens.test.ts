// The Tokens-and-sessions routes of reference-api.md over a real socket, on SQLite and
// (when DATABASE_URL points at it) PostgreSQL: drf-behaviors §7.4 for the token view,
// and the csrf → login → session → logout flow the DRF oracle answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { csrfSecretOf } from '../../src/authentication/csrf.js'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

const BOB_KEY = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const CAROL_KEY = 'ca7013ca7013ca7013ca7013ca7013ca7013ca70'
const INVALID = { non_field_errors: ['Unable to log in with provided credentials.'] }
const JSON_TYPE = { 'content-type': 'application/json' }
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' }

interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed JSON body, or `undefined` when there is none. */
  readonly json: unknown
  readonly cookies: readonly string[]
}

/** The attributes of one Set-Cookie line, lower-cased names; `value` is the cookie's value. */
function cookieParts(line: string): { name: string; value: string; attrs: Map<string, string> } {
  const [pair = '', ...rest] = line.split(';').map((p) => p.trim())
  const eq = pair.indexOf('=')
  const attrs = new Map<string, string>()
  for (const attr of rest) {
    const i = attr.indexOf('=')
    attrs.set((i === -1 ? attr : attr.slice(0, i)).toLowerCase(), i === -1 ? '' : attr.slice(i + 1))
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attrs }
}

function setCookie(reply: Reply, name: string): ReturnType<typeof cookieParts> | undefined {
  return reply.cookies.map(cookieParts).find((c) => c.name === name)
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`tokens and sessions (${backend.name})`, () => {
    let server: RunningReference

    beforeAll(async () => {
      server = await startReference(await backend.create())
    })
    afterAll(async () => {
      await server?.close()
    })

    async function send(
      method: string,
      path: string,
      headers: Record<string, string> = {},
      body?: string | FormData,
    ): Promise<Reply> {
      const res = await fetch(server.baseUrl + path, { method, headers, ...(body === undefined ? {} : { body }) })
      const text = await res.text()
      let json: unknown
      try {
        json = text === '' ? undefined : JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: res.status, headers: res.headers, text, json, cookies: res.headers.getSetCookie() }
    }
    const postJson = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
      send('POST', path, { ...JSON_TYPE, ...headers }, JSON.stringify(body))
    const postForm = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> =>
      send('POST', path, { ...FORM_TYPE, ...headers }, new URLSearchParams(fields).toString())
    const TOKEN = '/api/auth/token/'

    describe('POST /api/auth/token/', () => {
      it('answers 200 {"token"} in JSON for JSON credentials', async () => {
        const r = await postJson(TOKEN, { username: 'bob', password: 'bob-pass-2' })
        expect(r.status).toBe(200)
        expect(r.text).toBe(`{"token":"${BOB_KEY}"}`)
        expect(r.headers.get('content-type')).toBe('application/json')
        expect(r.headers.get('allow')).toBe('POST, OPTIONS')
      })

      it('accepts urlencoded form credentials', async () => {
        const r = await postForm(TOKEN, { username: 'bob', password: 'bob-pass-2' })
        expect(r.status).toBe(200)
        expect(r.json).toEqual({ token: BOB_KEY })
      })

      it('accepts multipart form credentials', async () => {
        const form = new FormData()
        form.set('username', 'bob')
        form.set('password', 'bob-pass-2')
        const r = await send('POST', TOKEN, {}, form)
        expect(r.status).toBe(200)
        expect(r.json).toEqual({ token: BOB_KEY })
      })

      it('creates a token for a user without one, then returns the same key', async () => {
        const first = await postJson(TOKEN, { username: 'alice', password: 'alice-pass-1' })
        expect(first.status).toBe(200)
        const key = (first.json as { token: string }).token
        expect(key).toMatch(/^[0-9a-f]{40}$/)
        expect(key).not.toBe(BOB_KEY)
        const second = await postForm(TOKEN, { username: 'alice', password: 'alice-pass-1' })
        expect(second.json).toEqual({ token: key })
        const who = await send('GET', '/api/schemes/token/', { authorization: `Token ${key}` })
        expect(who.json).toEqual({ username: 'alice', authenticated: true, auth: key })
      })

      it('reports a missing field', async () => {
        const r = await postJson(TOKEN, { username: 'bob' })
        expect(r.status).toBe(400)
        expect(r.json).toEqual({ password: ['This field is required.'] })
      })

      it.each([
        ['an empty body', undefined, {}],
        ['an empty JSON body', '', JSON_TYPE],
        ['{}', '{}', JSON_TYPE],
      ])('reports both fields required, in field order, for %s', async (_label, body, headers) => {
        const r = await send('POST', TOKEN, headers, body)
        expect(r.status).toBe(400)
        expect(r.text).toBe('{"username":["This field is required."],"password":["This field is required."]}')
      })

      it('reports blank strings', async () => {
        const r = await postJson(TOKEN, { username: '', password: '' })
        expect(r.status).toBe(400)
        expect(r.text).toBe('{"username":["This field may not be blank."],"password":["This field may not be blank."]}')
      })

      it('treats a whitespace username as blank but keeps a whitespace password', async () => {
        const r = await postJson(TOKEN, { username: '   ', password: '  ' })
        expect(r.json).toEqual({ username: ['This field may not be blank.'] })
      })

      it('reports JSON nulls', async () => {
        const r = await postJson(TOKEN, { username: null, password: null })
        expect(r.status).toBe(400)
        expect(r.text).toBe('{"username":["This field may not be null."],"password":["This field may not be null."]}')
      })

      it('refuses a list, a boolean or an object as a string', async () => {
        expect((await postJson(TOKEN, { username: ['bob'], password: 'bob-pass-2' })).json).toEqual({
          username: ['Not a valid string.'],
        })
        expect((await postJson(TOKEN, { username: true, password: { a: 1 } })).json).toEqual({
          username: ['Not a valid string.'],
          password: ['Not a valid string.'],
        })
      })

      it('turns numbers into strings (then the credentials are simply wrong)', async () => {
        const r = await postJson(TOKEN, { username: 123, password: 45.5 })
        expect(r.status).toBe(400)
        expect(r.json).toEqual(INVALID)
      })

      it('refuses null characters', async () => {
        const r = await postForm(TOKEN, { username: 'b\u0000ob', password: 'bob-pass-2' })
        expect(r.json).toEqual({ username: ['Null characters are not allowed.'] })
      })

      it.each([
        ['[1]', 'list'],
        ['"abc"', 'str'],
        ['7', 'int'],
        ['1.5', 'float'],
        ['true', 'bool'],
      ])('refuses the non-object body %s', async (body, type) => {
        const r = await send('POST', TOKEN, JSON_TYPE, body)
        expect(r.status).toBe(400)
        expect(r.json).toEqual({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${type}.`] })
      })

      it('answers "No data provided" for a JSON null body', async () => {
        const r = await send('POST', TOKEN, JSON_TYPE, 'null')
        expect(r.status).toBe(400)
        expect(r.json).toEqual({ non_field_errors: ['No data provided'] })
      })

      it('trims the username but not the password', async () => {
        expect((await postJson(TOKEN, { username: '  bob ', password: 'bob-pass-2' })).json).toEqual({ token: BOB_KEY })
        expect((await postJson(TOKEN, { username: 'bob', password: ' bob-pass-2' })).json).toEqual(INVALID)
      })

      it.each([
        ['a wrong password', 'bob', 'nope'],
        ['an unknown user', 'ghost', 'bob-pass-2'],
        ['an inactive user with the right password', 'carol', 'carol-pass-3'],
        ['a username in the wrong case', 'BOB', 'bob-pass-2'],
      ])('refuses %s with non_field_errors', async (_label, username, password) => {
        const r = await postJson(TOKEN, { username, password })
        expect(r.status).toBe(400)
        expect(r.text).toBe('{"non_field_errors":["Unable to log in with provided credentials."]}')
      })

      it('answers 415 for text/plain', async () => {
        const r = await send('POST', TOKEN, { 'content-type': 'text/plain' }, 'username=bob')
        expect(r.status).toBe(415)
        expect(r.json).toEqual({ detail: 'Unsupported media type "text/plain" in request.' })
      })

      it('answers 400 for malformed JSON', async () => {
        const r = await send('POST', TOKEN, JSON_TYPE, '{bad')
        expect(r.status).toBe(400)
        expect((r.json as { detail: string }).detail).toMatch(/^JSON parse error - /)
      })

      it('answers 406 when the Accept header admits no JSON, JSON for a browser Accept', async () => {
        const html = await postForm(TOKEN, { username: 'bob', password: 'bob-pass-2' }, { accept: 'text/html' })
        expect(html.status).toBe(406)
        expect(html.json).toEqual({ detail: 'Could not satisfy the request Accept header.' })
        expect(html.headers.get('content-type')).toBe('application/json')
        const browser = await postForm(
          TOKEN,
          { username: 'bob', password: 'bob-pass-2' },
          { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
        )
        expect(browser.status).toBe(200)
        expect(browser.json).toEqual({ token: BOB_KEY })
      })

      it.each(['GET', 'PUT', 'DELETE'])('answers 405 to %s with Allow: POST, OPTIONS', async (method) => {
        const r = await send(method, TOKEN)
        expect(r.status).toBe(405)
        expect(r.json).toEqual({ detail: `Method "${method}" not allowed.` })
        expect(r.headers.get('allow')).toBe('POST, OPTIONS')
      })

      it('answers OPTIONS with the view name and JSON as the only renderer', async () => {
        const r = await send('OPTIONS', TOKEN)
        expect(r.status).toBe(200)
        expect(r.json).toMatchObject({ name: 'Obtain Auth Token', renders: ['application/json'] })
      })

      it('runs the default schemes first: a bad Authorization header fails as on any view', async () => {
        const r = await postForm(TOKEN, { username: 'bob', password: 'bob-pass-2' }, { authorization: 'Token nope' })
        expect(r.status).toBe(401)
        expect(r.json).toEqual({ detail: 'Invalid token.' })
        expect(r.headers.get('www-authenticate')).toBe('Token')
        const inactive = await postForm(TOKEN, { username: 'bob', password: 'bob-pass-2' }, {
          authorization: `Token ${CAROL_KEY}`,
        })
        expect(inactive.status).toBe(401)
        expect(inactive.json).toEqual({ detail: 'User inactive or deleted.' })
      })

      it('answers for the body credentials, not for the authenticated caller', async () => {
        const r = await postForm(TOKEN, { username: 'admin', password: 'admin-pass-4' }, { authorization: `Token ${BOB_KEY}` })
        expect(r.status).toBe(200)
        expect((r.json as { token: string }).token).not.toBe(BOB_KEY)
      })
    })

    describe('POST /api/auth/token/detailed/', () => {
      it('answers token, user_id and username, in that order', async () => {
        const r = await postForm('/api/auth/token/detailed/', { username: 'bob', password: 'bob-pass-2' })
        expect(r.status).toBe(200)
        expect(r.text).toBe(`{"token":"${BOB_KEY}","user_id":2,"username":"bob"}`)
      })

      it('gives the same key as the plain view for a new token', async () => {
        const detailed = await postJson('/api/auth/token/detailed/', { username: 'admin', password: 'admin-pass-4' })
        const plain = await postJson(TOKEN, { username: 'admin', password: 'admin-pass-4' })
        expect(detailed.json).toEqual({ token: (plain.json as { token: string }).token, user_id: 4, username: 'admin' })
      })

      it('refuses bad credentials and GET like the plain view', async () => {
        expect((await postForm('/api/auth/token/detailed/', { username: 'carol', password: 'carol-pass-3' })).json).toEqual(INVALID)
        const get = await send('GET', '/api/auth/token/detailed/')
        expect(get.status).toBe(405)
        expect(get.headers.get('allow')).toBe('POST, OPTIONS')
      })
    })

    describe('csrf, login and logout', () => {
      /** GET /api/auth/csrf/: the cookie's secret and the masked token. */
      async function getCsrf(cookie?: string): Promise<{ secret: string; token: string; reply: Reply }> {
        const reply = await send('GET', '/api/auth/csrf/', cookie === undefined ? {} : { cookie })
        const secret = setCookie(reply, 'csrftoken')?.value ?? ''
        return { secret, token: (reply.json as { csrfToken: string }).csrfToken, reply }
      }

      /** Logs bob in; returns the session key and the rotated CSRF secret. */
      async function login(): Promise<{ session: string; csrf: string; reply: Reply }> {
        const { secret, token } = await getCsrf()
        const reply = await postJson(
          '/api/auth/login/',
          { username: 'bob', password: 'bob-pass-2' },
          { cookie: `csrftoken=${secret}`, 'x-csrftoken': token },
        )
        return {
          session: setCookie(reply, 'sessionid')?.value ?? '',
          csrf: setCookie(reply, 'csrftoken')?.value ?? '',
          reply,
        }
      }

      it('GET /api/auth/csrf/ sets a 32-character secret and answers its 64-character masked form', async () => {
        const { secret, token, reply } = await getCsrf()
        expect(reply.status).toBe(200)
        expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
        expect(secret).toMatch(/^[A-Za-z0-9]{32}$/)
        expect(token).toMatch(/^[A-Za-z0-9]{64}$/)
        expect(csrfSecretOf(token)).toBe(secret)
        const cookie = setCookie(reply, 'csrftoken')
        expect(cookie?.attrs.get('path')).toBe('/')
        expect(cookie?.attrs.get('samesite')?.toLowerCase()).toBe('lax')
        expect(cookie?.attrs.get('max-age')).toBe('31449600')
        expect(cookie?.attrs.has('httponly')).toBe(false)
        expect(cookie?.attrs.has('secure')).toBe(false)
      })

      it('keeps a valid existing secret (a new mask each time) and replaces a malformed one', async () => {
        const first = await getCsrf()
        const again = await getCsrf(`csrftoken=${first.secret}`)
        expect(again.secret).toBe(first.secret)
        expect(again.token).not.toBe(first.token)
        expect(csrfSecretOf(again.token)).toBe(first.secret)
        const fromMasked = await getCsrf(`csrftoken=${first.token}`)
        expect(fromMasked.secret).toBe(first.secret)
        const fromBad = await getCsrf('csrftoken=not-a-secret')
        expect(fromBad.secret).toMatch(/^[A-Za-z0-9]{32}$/)
      })

      it('login without the CSRF cookie is 403 "CSRF cookie not set."', async () => {
        const r = await postForm('/api/auth/login/', { username: 'bob', password: 'bob-pass-2' })
        expect(r.status).toBe(403)
        expect(r.json).toEqual({ detail: 'CSRF Failed: CSRF cookie not set.' })
        expect(r.cookies).toEqual([])
      })

      it('login with the cookie but no or a wrong token is 403 "CSRF token missing or incorrect."', async () => {
        const { secret } = await getCsrf()
        const missing = await postForm('/api/auth/login/', { username: 'bob', password: 'bob-pass-2' }, {
          cookie: `csrftoken=${secret}`,
        })
        expect(missing.status).toBe(403)
        expect(missing.json).toEqual({ detail: 'CSRF Failed: CSRF token missing or incorrect.' })
        const other = (await getCsrf()).token
        const wrong = await postForm('/api/auth/login/', { username: 'bob', password: 'bob-pass-2' }, {
          cookie: `csrftoken=${secret}`,
          'x-csrftoken': other,
        })
        expect(wrong.status).toBe(403)
        expect(wrong.json).toEqual({ detail: 'CSRF Failed: CSRF token missing or incorrect.' })
      })

      it('login checks the credentials like the token view once CSRF passes', async () => {
        const { secret, token } = await getCsrf()
        const headers = { cookie: `csrftoken=${secret}`, 'x-csrftoken': token }
        const bad = await postForm('/api/auth/login/', { username: 'bob', password: 'nope' }, headers)
        expect(bad.status).toBe(400)
        expect(bad.json).toEqual(INVALID)
        expect(bad.cookies).toEqual([])
        expect((await postForm('/api/auth/login/', { username: 'carol', password: 'carol-pass-3' }, headers)).json).toEqual(
          INVALID,
        )
        const empty = await postJson('/api/auth/login/', {}, headers)
        expect(empty.text).toBe('{"username":["This field is required."],"password":["This field is required."]}')
        const list = await send('POST', '/api/auth/login/', { ...JSON_TYPE, ...headers }, '[]')
        expect(list.json).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] })
      })

      it('login answers {"username"}, a session cookie and a rotated CSRF cookie', async () => {
        const { secret, token } = await getCsrf()
        const r = await postJson('/api/auth/login/', { username: 'bob', password: 'bob-pass-2' }, {
          cookie: `csrftoken=${secret}`,
          'x-csrftoken': token,
        })
        expect(r.status).toBe(200)
        expect(r.text).toBe('{"username":"bob"}')
        const session = setCookie(r, 'sessionid')
        expect(session?.value).toMatch(/^[a-z0-9]{32}$/)
        expect(session?.attrs.has('httponly')).toBe(true)
        expect(session?.attrs.get('samesite')?.toLowerCase()).toBe('lax')
        expect(session?.attrs.get('path')).toBe('/')
        expect(session?.attrs.get('max-age')).toBe('1209600')
        expect(session?.attrs.has('secure')).toBe(false)
        const csrf = setCookie(r, 'csrftoken')
        expect(csrf?.value).toMatch(/^[A-Za-z0-9]{32}$/)
        expect(csrf?.value).not.toBe(secret)
        const stored = await server.ref.sessions.get(session?.value ?? '')
        expect(stored?.userId).toBe(2)
        const days = ((stored?.expiresAt.getTime() ?? 0) - Date.now()) / 86_400_000
        expect(days).toBeGreaterThan(13.9)
        expect(days).toBeLessThanOrEqual(14)
      })

      it('login accepts the form field csrfmiddlewaretoken instead of the header', async () => {
        const { secret } = await getCsrf()
        const r = await postForm(
          '/api/auth/login/',
          { username: 'alice', password: 'alice-pass-1', csrfmiddlewaretoken: secret },
          { cookie: `csrftoken=${secret}` },
        )
        expect(r.status).toBe(200)
        expect(r.json).toEqual({ username: 'alice' })
      })

      it('the session authenticates; its unsafe requests need the rotated CSRF token', async () => {
        const { session, csrf } = await login()
        const cookie = `sessionid=${session}; csrftoken=${csrf}`
        const get = await send('GET', '/api/schemes/session/', { cookie })
        expect(get.status).toBe(200)
        expect(get.json).toEqual({ username: 'bob', authenticated: true, auth: null })
        const noToken = await send('POST', '/api/schemes/session/', { cookie })
        expect(noToken.status).toBe(403)
        expect(noToken.json).toEqual({ detail: 'CSRF Failed: CSRF token missing or incorrect.' })
        const ok = await send('POST', '/api/schemes/session/', { cookie, 'x-csrftoken': csrf })
        expect(ok.status).toBe(200)
        expect(ok.json).toEqual({ username: 'bob', authenticated: true, auth: null })
        const whoami = await send('GET', '/api/whoami/', { cookie })
        expect(whoami.json).toEqual({ username: 'bob', authenticated: true, auth: null })
      })

      it('the CSRF secret from before login no longer passes', async () => {
        const before = await getCsrf()
        const r = await postJson('/api/auth/login/', { username: 'bob', password: 'bob-pass-2' }, {
          cookie: `csrftoken=${before.secret}`,
          'x-csrftoken': before.token,
        })
        const session = setCookie(r, 'sessionid')?.value ?? ''
        const after = setCookie(r, 'csrftoken')?.value ?? ''
        // A client that kept the old cookie and token is refused...
        const stale = await send('POST', '/api/schemes/session/', {
          cookie: `sessionid=${session}; csrftoken=${after}`,
          'x-csrftoken': before.token,
        })
        expect(stale.status).toBe(403)
        // ...and one using the rotated cookie's value passes.
        const fresh = await send('POST', '/api/schemes/session/', {
          cookie: `sessionid=${session}; csrftoken=${after}`,
          'x-csrftoken': after,
        })
        expect(fresh.status).toBe(200)
      })

      it('login replaces a session the request already carried', async () => {
        const first = await login()
        const { secret, token } = await getCsrf()
        const r = await postJson('/api/auth/login/', { username: 'alice', password: 'alice-pass-1' }, {
          cookie: `sessionid=${first.session}; csrftoken=${secret}`,
          'x-csrftoken': token,
        })
        // bob's session is live, so the pipeline's session scheme checked CSRF too, and passed.
        expect(r.status).toBe(200)
        const second = setCookie(r, 'sessionid')?.value ?? ''
        expect(second).not.toBe(first.session)
        expect(await server.ref.sessions.get(first.session)).toBeNull()
        expect((await server.ref.sessions.get(second))?.userId).toBe(1)
      })

      it('logout of a session needs CSRF, then answers 204, deletes the session and expires the cookie', async () => {
        const { session, csrf } = await login()
        const cookie = `sessionid=${session}; csrftoken=${csrf}`
        const refused = await send('POST', '/api/auth/logout/', { cookie })
        expect(refused.status).toBe(403)
        expect(refused.json).toEqual({ detail: 'CSRF Failed: CSRF token missing or incorrect.' })
        expect((await send('GET', '/api/schemes/session/', { cookie })).status).toBe(200)

        const out = await send('POST', '/api/auth/logout/', { cookie, 'x-csrftoken': csrf })
        expect(out.status).toBe(204)
        expect(out.text).toBe('')
        expect(out.headers.get('allow')).toBe('POST, OPTIONS')
        const expired = setCookie(out, 'sessionid')
        // Django's delete_cookie writes the empty value quoted: `sessionid=""; expires=…; Max-Age=0`.
        expect(expired?.value).toBe('""')
        expect(expired?.attrs.get('max-age')).toBe('0')
        expect(expired?.attrs.get('path')).toBe('/')
        expect(await server.ref.sessions.get(session)).toBeNull()

        const after = await send('GET', '/api/schemes/session/', { cookie })
        expect(after.status).toBe(403)
        expect(after.json).toEqual({ detail: 'Authentication credentials were not provided.' })
        const whoami = await send('GET', '/api/whoami/', { cookie })
        expect(whoami.json).toEqual({ username: null, authenticated: false, auth: null })
      })

      it('logout without a session is 204 with no cookie, and needs no CSRF', async () => {
        const r = await send('POST', '/api/auth/logout/')
        expect(r.status).toBe(204)
        expect(r.text).toBe('')
        expect(r.cookies).toEqual([])
        const stale = await send('POST', '/api/auth/logout/', { cookie: 'sessionid=doesnotexist' })
        expect(stale.status).toBe(204)
        expect(setCookie(stale, 'sessionid')?.attrs.get('max-age')).toBe('0')
      })

      it('the session views allow only their methods and fail bad Authorization headers', async () => {
        for (const [method, path, allow] of [
          ['POST', '/api/auth/csrf/', 'GET, HEAD, OPTIONS'],
          ['GET', '/api/auth/login/', 'POST, OPTIONS'],
          ['GET', '/api/auth/logout/', 'POST, OPTIONS'],
        ] as const) {
          const r = await send(method, path)
          expect(r.status).toBe(405)
          expect(r.json).toEqual({ detail: `Method "${method}" not allowed.` })
          expect(r.headers.get('allow')).toBe(allow)
        }
        for (const path of ['/api/auth/csrf/', '/api/auth/login/', '/api/auth/logout/']) {
          const r = await send(path === '/api/auth/csrf/' ? 'GET' : 'POST', path, { authorization: 'Token nope' })
          expect(r.status).toBe(401)
          expect(r.json).toEqual({ detail: 'Invalid token.' })
          expect(r.headers.get('www-authenticate')).toBe('Token')
        }
      })
    })
  })
}
