/**
 * The Identity routes of reference-api.md over real HTTP, on SQLite and (when
 * DATABASE_URL points at one) PostgreSQL: every route, every scheme, and the
 * statuses, challenges and messages DRF 3.14 gives (checked against the oracle,
 * see test/oracle/identity-oracle.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { login, send, type ExchangeResult, type SessionCookies } from '../oracle/http-exchange.js'
import { BOB_TOKEN, CAROL_TOKEN, CREDENTIALS } from '../oracle/requests.js'
import { backendUnavailable } from '../helpers/requirements.js'

const NOT_PROVIDED = { detail: 'Authentication credentials were not provided.' }
const NO_PERMISSION = { detail: 'You do not have permission to perform this action.' }
const INVALID_USER = { detail: 'Invalid username/password.' }
const INVALID_TOKEN = { detail: 'Invalid token.' }
const INACTIVE = { detail: 'User inactive or deleted.' }
const BASIC = 'Basic realm="api"'
const me = (username: string | null, auth: string | null = null): unknown => ({ username, authenticated: username !== null, auth })
const auth = (name: string): Record<string, string> => ({ Authorization: CREDENTIALS[name] ?? '' })

/** [route, headers, status, body, WWW-Authenticate] */
type Row = readonly [string, Record<string, string>, number, unknown, string | null]

const ROWS: readonly Row[] = [
  // Default schemes Token, Session, Basic: Token is first, so denials are 401 + "Token".
  ['/api/whoami/', {}, 200, me(null), null],
  ['/api/whoami/', auth('basic alice'), 200, me('alice'), null],
  ['/api/whoami/', auth('token bob'), 200, me('bob', BOB_TOKEN), null],
  ['/api/whoami/', auth('token bob lowercase keyword'), 200, me('bob', BOB_TOKEN), null],
  ['/api/whoami/', auth('bearer bob'), 200, me(null), null],
  ['/api/whoami/', auth('basic alice wrong password'), 401, INVALID_USER, 'Token'],
  ['/api/whoami/', auth('basic carol (inactive)'), 401, INVALID_USER, 'Token'],
  ['/api/whoami/', auth('basic no colon'), 401, INVALID_USER, 'Token'],
  ['/api/whoami/', auth('basic bad base64'), 401, { detail: 'Invalid basic header. Credentials not correctly base64 encoded.' }, 'Token'],
  ['/api/whoami/', auth('basic empty'), 401, { detail: 'Invalid basic header. No credentials provided.' }, 'Token'],
  ['/api/whoami/', auth('basic spaces'), 401, { detail: 'Invalid basic header. Credentials string should not contain spaces.' }, 'Token'],
  ['/api/whoami/', auth('basic junk chars'), 200, me('alice'), null],
  ['/api/whoami/', auth('basic data after padding'), 200, me('bob'), null],
  ['/api/whoami/', auth('basic mixed case + tab'), 200, me('alice'), null],
  ['/api/whoami/', auth('token carol (inactive)'), 401, INACTIVE, 'Token'],
  ['/api/whoami/', auth('token unknown'), 401, INVALID_TOKEN, 'Token'],
  ['/api/whoami/', auth('token empty'), 401, { detail: 'Invalid token header. No credentials provided.' }, 'Token'],
  ['/api/whoami/', auth('token spaces'), 401, { detail: 'Invalid token header. Token string should not contain spaces.' }, 'Token'],
  ['/api/whoami/', auth('token invalid utf-8'), 401, { detail: 'Invalid token header. Token string should not contain invalid characters.' }, 'Token'],
  ['/api/whoami/', auth('unknown scheme'), 200, me(null), null],
  ['/api/private/', {}, 401, NOT_PROVIDED, 'Token'],
  ['/api/private/', auth('bearer bob'), 401, NOT_PROVIDED, 'Token'],
  ['/api/private/', auth('basic alice'), 200, me('alice'), null],
  ['/api/private/', auth('token bob'), 200, me('bob', BOB_TOKEN), null],
  ['/api/private/', auth('basic alice wrong password'), 401, INVALID_USER, 'Token'],
  ['/api/staff/', {}, 401, NOT_PROVIDED, 'Token'],
  ['/api/staff/', auth('basic admin'), 200, me('admin'), null],
  ['/api/staff/', auth('token bob'), 403, NO_PERMISSION, null],
  ['/api/staff/', auth('basic alice'), 403, NO_PERMISSION, null],
  // Basic only.
  ['/api/schemes/basic/', {}, 401, NOT_PROVIDED, BASIC],
  ['/api/schemes/basic/', auth('basic alice'), 200, me('alice'), null],
  ['/api/schemes/basic/', auth('basic alice wrong password'), 401, INVALID_USER, BASIC],
  ['/api/schemes/basic/', auth('basic carol (inactive)'), 401, INVALID_USER, BASIC],
  ['/api/schemes/basic/', auth('token bob'), 401, NOT_PROVIDED, BASIC],
  // Token only.
  ['/api/schemes/token/', {}, 401, NOT_PROVIDED, 'Token'],
  ['/api/schemes/token/', auth('token bob'), 200, me('bob', BOB_TOKEN), null],
  ['/api/schemes/token/', auth('token carol (inactive)'), 401, INACTIVE, 'Token'],
  ['/api/schemes/token/', auth('token unknown'), 401, INVALID_TOKEN, 'Token'],
  ['/api/schemes/token/', auth('basic alice'), 401, NOT_PROVIDED, 'Token'],
  // Bearer.
  ['/api/schemes/bearer/', {}, 401, NOT_PROVIDED, 'Bearer'],
  ['/api/schemes/bearer/', auth('bearer bob'), 200, me('bob', BOB_TOKEN), null],
  ['/api/schemes/bearer/', { Authorization: `BEARER ${BOB_TOKEN}` }, 200, me('bob', BOB_TOKEN), null],
  ['/api/schemes/bearer/', auth('bearer carol (inactive)'), 401, INACTIVE, 'Bearer'],
  ['/api/schemes/bearer/', auth('bearer unknown'), 401, INVALID_TOKEN, 'Bearer'],
  ['/api/schemes/bearer/', auth('token bob'), 401, NOT_PROVIDED, 'Bearer'],
  // Session only: no challenge, so 403.
  ['/api/schemes/session/', {}, 403, NOT_PROVIDED, null],
  ['/api/schemes/session/', auth('basic alice'), 403, NOT_PROVIDED, null],
  // Remote user (X-Remote-User): 403s, never raises.
  ['/api/schemes/remote-user/', {}, 403, NOT_PROVIDED, null],
  ['/api/schemes/remote-user/', { 'X-Remote-User': '' }, 403, NOT_PROVIDED, null],
  ['/api/schemes/remote-user/', { 'X-Remote-User': 'alice' }, 200, me('alice'), null],
  ['/api/schemes/remote-user/', { 'X-Remote-User': 'carol' }, 403, NOT_PROVIDED, null],
  // Custom X-Username scheme: no is_active check; unknown → "No such user" (403: no challenge).
  ['/api/schemes/custom/', {}, 403, NOT_PROVIDED, null],
  ['/api/schemes/custom/', { 'X-Username': '' }, 403, NOT_PROVIDED, null],
  ['/api/schemes/custom/', { 'X-Username': 'alice' }, 200, me('alice'), null],
  ['/api/schemes/custom/', { 'X-Username': 'carol' }, 200, me('carol'), null],
  ['/api/schemes/custom/', { 'X-Username': 'ghost' }, 403, { detail: 'No such user' }, null],
  // Scheme order decides the denial kind.
  ['/api/schemes/session-basic/', {}, 403, NOT_PROVIDED, null],
  ['/api/schemes/session-basic/', auth('basic alice'), 200, me('alice'), null],
  ['/api/schemes/session-basic/', auth('basic alice wrong password'), 403, INVALID_USER, null],
  ['/api/schemes/basic-session/', {}, 401, NOT_PROVIDED, BASIC],
  ['/api/schemes/basic-session/', auth('basic alice'), 200, me('alice'), null],
  ['/api/schemes/basic-session/', auth('basic alice wrong password'), 401, INVALID_USER, BASIC],
]

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`Identity routes on ${backend.name}`, () => {
    let server: RunningReference
    const get = (path: string, headers: Record<string, string> = {}): Promise<ExchangeResult> => send(server.baseUrl, 'GET', path, headers)

    beforeAll(async () => {
      server = await startReference(await backend.create())
    })
    afterAll(async () => server?.close())

    it.each(ROWS)('GET %s %j → %i', async (path, headers, status, body, challenge) => {
      const response = await get(path, headers)
      expect(response.status).toBe(status)
      expect(response.body).toEqual(body)
      expect(response.headers['www-authenticate'] ?? null).toBe(challenge)
      expect(response.headers['content-type']).toBe('application/json')
      expect(response.headers['allow']).toBe(path === '/api/schemes/session/' ? 'GET, POST, HEAD, OPTIONS' : 'GET, HEAD, OPTIONS')
    })

    it('remote user: an unknown name creates the user once; later requests find it', async () => {
      const first = await get('/api/schemes/remote-user/', { 'X-Remote-User': 'newbie' })
      expect(first.status).toBe(200)
      expect(first.body).toEqual(me('newbie'))
      const user = await server.ref.users.findByUsername('newbie')
      expect(user).toMatchObject({ username: 'newbie', isActive: true, isStaff: false })
      // The created user has no usable password.
      expect(await server.ref.users.authenticate('newbie', '')).toBeNull()
      const again = await get('/api/schemes/remote-user/', { 'X-Remote-User': 'newbie' })
      expect(again.body).toEqual(me('newbie'))
      expect((await server.ref.users.findByUsername('newbie'))?.id).toBe(user?.id)
    })

    it('methods: 405 with DRF message after authentication; HEAD without body; OPTIONS metadata', async () => {
      const del = await send(server.baseUrl, 'DELETE', '/api/whoami/')
      expect(del.status).toBe(405)
      expect(del.body).toEqual({ detail: 'Method "DELETE" not allowed.' })
      const anonDelete = await send(server.baseUrl, 'DELETE', '/api/private/')
      expect(anonDelete.status).toBe(401)
      const head = await send(server.baseUrl, 'HEAD', '/api/private/', auth('token bob'))
      expect(head.status).toBe(200)
      expect(head.text).toBe('')
      const options = await send(server.baseUrl, 'OPTIONS', '/api/whoami/')
      expect(options.status).toBe(200)
      expect(options.body).toMatchObject({ name: 'Who Am I', renders: ['application/json', 'text/html'] })
    })

    it('negotiation: 406 before authentication, ?format=xml is 404, no slash is 404', async () => {
      const xml = await get('/api/private/', { Accept: 'application/xml' })
      expect(xml.status).toBe(406)
      expect(xml.body).toEqual({ detail: 'Could not satisfy the request Accept header.' })
      expect((await get('/api/private/?format=xml')).status).toBe(404)
      expect((await get('/api/private')).status).toBe(404)
    })

    it('Vary: Accept (JSON and HTML renderers, as DRF), and Cookie exactly when the session scheme was consulted', async () => {
      expect((await get('/api/private/')).headers['vary']).toBe('Accept, Cookie')
      expect((await get('/api/private/', auth('token bob'))).headers['vary']).toBe('Accept')
      expect((await get('/api/private/', auth('token unknown'))).headers['vary']).toBe('Accept')
      expect((await get('/api/schemes/basic/', auth('basic alice'))).headers['vary']).toBe('Accept')
      expect((await get('/api/schemes/session-basic/', auth('basic alice'))).headers['vary']).toBe('Accept, Cookie')
    })

    it('the token record is the auth of a token request (carol\'s is refused as inactive)', async () => {
      const carol = await get('/api/schemes/token/', { Authorization: `Token ${CAROL_TOKEN}` })
      expect(carol.status).toBe(401)
      expect(carol.body).toEqual(INACTIVE)
    })

    describe('sessions', () => {
      let alice: SessionCookies
      let admin: SessionCookies
      const cookie = (s: SessionCookies): string => `sessionid=${s.sessionid}; csrftoken=${s.csrftoken}`

      beforeAll(async () => {
        const a = await login(server.baseUrl, 'alice')
        const b = await login(server.baseUrl, 'admin')
        if (a === null || b === null) throw new Error('login through /api/auth/login/ failed')
        alice = a
        admin = b
      })

      it('a session authenticates safe requests without CSRF', async () => {
        for (const path of ['/api/whoami/', '/api/private/', '/api/schemes/session/', '/api/schemes/session-basic/', '/api/schemes/basic-session/']) {
          const response = await get(path, { Cookie: cookie(alice) })
          expect(response.status, path).toBe(200)
          expect(response.body, path).toEqual(me('alice'))
        }
        expect((await get('/api/staff/', { Cookie: cookie(alice) })).status).toBe(403)
        expect((await get('/api/staff/', { Cookie: cookie(admin) })).body).toEqual(me('admin'))
      })

      it('an unsafe session request needs the CSRF token (403, never 401)', async () => {
        const post = (headers: Record<string, string>): Promise<ExchangeResult> => send(server.baseUrl, 'POST', '/api/schemes/session/', headers)
        const missing = await post({ Cookie: cookie(alice) })
        expect(missing.status).toBe(403)
        expect(missing.body).toEqual({ detail: 'CSRF Failed: CSRF token missing or incorrect.' })
        const noCookie = await post({ Cookie: `sessionid=${alice.sessionid}`, 'X-CSRFToken': alice.csrftoken })
        expect(noCookie.body).toEqual({ detail: 'CSRF Failed: CSRF cookie not set.' })
        const wrong = await post({ Cookie: cookie(alice), 'X-CSRFToken': 'a'.repeat(64) })
        expect(wrong.body).toEqual({ detail: 'CSRF Failed: CSRF token missing or incorrect.' })
        const origin = await post({ Cookie: cookie(alice), 'X-CSRFToken': alice.csrftoken, Origin: 'http://evil.example' })
        expect(origin.status).toBe(403)
        expect(origin.body).toEqual({ detail: 'CSRF Failed: Origin checking failed - http://evil.example does not match any trusted origins.' })
        const ok = await post({ Cookie: cookie(alice), 'X-CSRFToken': alice.csrftoken })
        expect(ok.status).toBe(200)
        expect(ok.body).toEqual(me('alice'))
        const sameOrigin = await post({ Cookie: cookie(alice), 'X-CSRFToken': alice.csrftoken, Origin: server.baseUrl })
        expect(sameOrigin.status).toBe(200)
      })

      it('an anonymous POST needs no CSRF token (it is just unauthenticated)', async () => {
        const response = await send(server.baseUrl, 'POST', '/api/schemes/session/')
        expect(response.status).toBe(403)
        expect(response.body).toEqual(NOT_PROVIDED)
      })

      it('Token before Session: a valid token wins over a session', async () => {
        const response = await get('/api/whoami/', { Cookie: cookie(alice), Authorization: `Token ${BOB_TOKEN}` })
        expect(response.body).toEqual(me('bob', BOB_TOKEN))
      })

      it('Session before Basic: a session wins over a bad Basic header', async () => {
        const response = await get('/api/schemes/session-basic/', { Cookie: cookie(alice), Authorization: 'Basic =a=' })
        expect(response.body).toEqual(me('alice'))
      })

      it('a forged or unknown session id is anonymous', async () => {
        for (const sessionid of ['forged', '', 'x'.repeat(300), '%00']) {
          const response = await get('/api/schemes/session/', { Cookie: `sessionid=${sessionid}` })
          expect(response.status).toBe(403)
          expect(response.body).toEqual(NOT_PROVIDED)
        }
      })
    })
  })
}
