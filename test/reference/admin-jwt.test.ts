// JWT users in the administration pages and the command line, over real HTTP on SQLite and
// PostgreSQL: a user's refresh tokens listed (simplejwt's OutstandingToken/BlacklistedToken
// admin) with a CSRF-protected "blacklist all"; deactivating a user (admin page or CLI) or
// deleting their row stops their access tokens at the next request and their refreshes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../helpers/databases.js'
import { cliInProcess } from '../helpers/cli-in-process.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { send, type ExchangeResult } from '../oracle/http-exchange.js'
import { AdminClient, adminLogin, csrfOf } from '../helpers/admin-client.js'
import { backendUnavailable } from '../helpers/requirements.js'

const KEY = 'django-insecure-admin-jwt-test-key-0123456789abcdef'
const NO_ACCOUNT = { detail: 'No active account found with the given credentials', code: 'no_active_account' }
const BLACKLISTED = { detail: 'Token is blacklisted', code: 'token_not_valid' }

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`JWT users in the admin pages and the CLI (${backend.name})`, () => {
    let server: RunningReference
    const post = (path: string, body: unknown): Promise<ExchangeResult> => send(server.baseUrl, 'POST', path, { 'Content-Type': 'application/json' }, JSON.stringify(body))
    const pair = async (username: string, password: string): Promise<{ refresh: string; access: string }> => {
      const response = await post('/api/jwt/', { username, password })
      expect(response.status).toBe(200)
      return response.body as { refresh: string; access: string }
    }
    const whoami = (access: string): Promise<ExchangeResult> => send(server.baseUrl, 'GET', '/api/schemes/jwt/', { Authorization: `Bearer ${access}` })
    const jtiOf = async (refresh: string): Promise<string> => String((await server.ref.jwt?.decode(refresh, 'refresh'))?.['jti'])
    const staff = async (): Promise<AdminClient> => {
      const client = new AdminClient(server.baseUrl)
      expect((await adminLogin(client, 'admin', 'admin-pass-4')).status).toBe(303)
      return client
    }
    const newUser = async (username: string): Promise<number> => Number((await server.ref.users.create({ username, password: `${username}-pass-1` })).id)

    beforeAll(async () => {
      // A token cache far longer than the test: what is seen at once was not waited for.
      server = await startReference(await backend.create(), { jwt: { signingKey: KEY }, tokenCacheTtlMs: 600_000 })
    }, 60_000)
    afterAll(async () => server?.close())

    it("lists the user's refresh tokens (jti, issued, expires, status); 'blacklist all' needs the CSRF token, then no refresh token of theirs refreshes", async () => {
      const id = await newUser('jwt-listed')
      const kept = await pair('jwt-listed', 'jwt-listed-pass-1')
      const loggedOut = await pair('jwt-listed', 'jwt-listed-pass-1')
      expect((await post('/api/jwt/blacklist/', { refresh: loggedOut.refresh })).status).toBe(200)
      const other = await pair('bob', 'bob-pass-2')

      const client = await staff()
      const page = await client.get(`/admin/users/${id}/`)
      expect(page.status).toBe(200)
      expect(page.html).toContain('<h2>JWT refresh tokens</h2>')
      const rows = page.html.slice(page.html.indexOf('<h2>JWT refresh tokens</h2>'))
      const keptRow = new RegExp(`<tr><td><code>${await jtiOf(kept.refresh)}</code></td><td>[^<]+</td><td>[^<]+</td><td><span class="tag on">outstanding</span></td></tr>`)
      const outRow = new RegExp(`<tr><td><code>${await jtiOf(loggedOut.refresh)}</code></td><td>[^<]+</td><td>[^<]+</td><td><span class="tag off">blacklisted</span> [^<]+</td></tr>`)
      expect(rows).toMatch(keptRow)
      expect(rows).toMatch(outRow)
      // Only this user's tokens, and never a token itself.
      expect(page.html).not.toContain(await jtiOf(other.refresh))
      expect(page.html).not.toContain(kept.refresh)
      expect(page.html).toContain('Blacklist all refresh tokens')

      // Without the CSRF field: refused, nothing blacklisted.
      const forged = await client.post(`/admin/users/${id}/jwt/blacklist-all/`, {})
      expect(forged.status).toBe(403)
      expect((await post('/api/jwt/refresh/', { refresh: kept.refresh })).status).toBe(200)

      const done = await client.post(`/admin/users/${id}/jwt/blacklist-all/`, { csrfmiddlewaretoken: csrfOf(page) })
      expect(done.status).toBe(303)
      expect(done.headers.get('location')).toBe(`/admin/users/${id}/?done=jwt-blacklisted`)
      const refused = await post('/api/jwt/refresh/', { refresh: kept.refresh })
      expect(refused.status).toBe(401)
      expect(refused.body).toEqual(BLACKLISTED)
      // Another user's refresh token is untouched.
      expect((await post('/api/jwt/refresh/', { refresh: other.refresh })).status).toBe(200)
      const after = await client.get(`/admin/users/${id}/?done=jwt-blacklisted`)
      expect(after.html).toContain('The user’s refresh tokens were blacklisted')
      expect(after.html).not.toContain('<span class="tag on">outstanding</span>')
      expect(after.html).not.toContain('Blacklist all refresh tokens')
    })

    it("a password set on the admin page with 'also blacklist all' ticked stops the user's refresh tokens; unticked, they still refresh", async () => {
      const id = await newUser('jwt-repassed')
      const first = await pair('jwt-repassed', 'jwt-repassed-pass-1')
      const client = await staff()
      const page = await client.get(`/admin/users/${id}/`)
      expect(page.html).toContain('name="blacklist_jwt"')
      const unticked = await client.post(`/admin/users/${id}/password/`, { csrfmiddlewaretoken: csrfOf(page), password1: 'quartz-lantern-71', password2: 'quartz-lantern-71' })
      expect(unticked.status).toBe(303)
      expect(unticked.headers.get('location')).toBe(`/admin/users/${id}/?done=password`)
      expect((await post('/api/jwt/refresh/', { refresh: first.refresh })).status).toBe(200)

      const second = await pair('jwt-repassed', 'quartz-lantern-71')
      const ticked = await client.post(`/admin/users/${id}/password/`, { csrfmiddlewaretoken: csrfOf(page), password1: 'copper-meadow-38', password2: 'copper-meadow-38', blacklist_jwt: '1' })
      expect(ticked.status).toBe(303)
      expect(ticked.headers.get('location')).toBe(`/admin/users/${id}/?done=password-jwt`)
      for (const refresh of [first.refresh, second.refresh]) {
        const refused = await post('/api/jwt/refresh/', { refresh })
        expect(refused.status).toBe(401)
        expect(refused.body).toEqual(BLACKLISTED)
      }
      // Only this user's tokens.
      const other = await pair('bob', 'bob-pass-2')
      expect((await post('/api/jwt/refresh/', { refresh: other.refresh })).status).toBe(200)
    })

    it('deactivating a user on the admin page stops their access token at the next request, and their refresh', async () => {
      const id = await newUser('jwt-admin-off')
      const { access, refresh } = await pair('jwt-admin-off', 'jwt-admin-off-pass-1')
      expect((await whoami(access)).status).toBe(200)
      const client = await staff()
      const page = await client.get(`/admin/users/${id}/`)
      expect((await client.post(`/admin/users/${id}/active/`, { csrfmiddlewaretoken: csrfOf(page), is_active: '0' })).status).toBe(303)
      const denied = await whoami(access)
      expect(denied.status).toBe(401)
      expect(denied.body).toEqual({ detail: 'User is inactive', code: 'user_inactive' })
      const refused = await post('/api/jwt/refresh/', { refresh })
      expect(refused.status).toBe(401)
      expect(refused.body).toEqual(NO_ACCOUNT)
      // Activated again: the same tokens work again (nothing about them was changed).
      expect((await client.post(`/admin/users/${id}/active/`, { csrfmiddlewaretoken: csrfOf(page), is_active: '1' })).status).toBe(303)
      expect((await whoami(access)).status).toBe(200)
      expect((await post('/api/jwt/refresh/', { refresh })).status).toBe(200)
    })

    it('drf-gatehouse deactivate-user (the CLI) does the same, with no server told: JWTAuthentication caches no user', async () => {
      await newUser('jwt-cli-off')
      const { access, refresh } = await pair('jwt-cli-off', 'jwt-cli-off-pass-1')
      const result = await cliInProcess(['deactivate-user', 'jwt-cli-off', '--database', server.databaseUrl])
      expect(result.code).toBe(0)
      // No Redis here: the CLI could not tell the server, and JWTs stop anyway (the user is read per request).
      expect(result.stderr).toContain('running servers were not told')
      expect((await whoami(access)).body).toEqual({ detail: 'User is inactive', code: 'user_inactive' })
      expect((await post('/api/jwt/refresh/', { refresh })).body).toEqual(NO_ACCOUNT)
    })

    it("a deleted user's access token is 'User not found' and their refresh is refused", async () => {
      const id = await newUser('jwt-deleted')
      const { access, refresh } = await pair('jwt-deleted', 'jwt-deleted-pass-1')
      await server.ref.db.deleteFrom('gatehouse_users').where('id', '=', id).execute()
      const denied = await whoami(access)
      expect(denied.status).toBe(401)
      expect(denied.body).toEqual({ detail: 'User not found', code: 'user_not_found' })
      expect((await post('/api/jwt/refresh/', { refresh })).body).toEqual(NO_ACCOUNT)
    })
  })
}
