// The administration pages (`drf-gatehouse/admin`) as the reference API mounts them at /admin/,
// over real HTTP on each of the four frameworks (SQLite), and on PostgreSQL: the staff gate,
// the CSRF check on every change, the key shown once and never in a URL or a listing, and
// changes reaching the API's token cache through the invalidation bus at once.
import { describe, expect, it } from 'vitest'
import { FRAMEWORKS, type Framework } from '../../examples/reference-api/app.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { deletePrefix, REDIS_URL, uniquePrefix } from '../helpers/redis.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { AdminClient, adminLogin, csrfOf, type Page } from '../helpers/admin-client.js'
import { unavailable } from '../helpers/requirements.js'

const BOB_KEY = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
/** A cache far longer than the test: a deactivation seen at once was told through the bus. */
const CACHE = { tokenCacheTtlMs: 600_000 }

async function whoami(server: RunningReference, key: string): Promise<number> {
  const response = await fetch(`${server.baseUrl}/api/whoami/`, { headers: { Authorization: `Token ${key}`, Accept: 'application/json' } })
  await response.arrayBuffer()
  return response.status
}

async function staffClient(server: RunningReference): Promise<AdminClient> {
  const client = new AdminClient(server.baseUrl)
  const login = await adminLogin(client, 'admin', 'admin-pass-4')
  expect(login.status).toBe(303)
  return client
}

/** The pages' promise: no script, no inline style, the CSP and the other security headers. */
function expectSafePage(page: Page): void {
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
  expect(page.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
  expect(page.headers.get('x-frame-options')).toBe('DENY')
  expect(page.headers.get('cache-control')).toBe('no-store')
  expect(page.html).not.toMatch(/<script|\son[a-z]+=|style=|javascript:/i)
}

function adminTests(start: () => Promise<RunningReference>): void {
  it('the staff gate: login page, a redirect without a session, 403 for a logged-in non-staff user, a non-staff login refused', async () => {
    const server = await start()
    try {
      const anonymous = new AdminClient(server.baseUrl)
      const gate = await anonymous.get('/admin/users/2/')
      expect(gate.status).toBe(302)
      expect(gate.headers.get('location')).toBe('/admin/login/?next=%2Fadmin%2Fusers%2F2%2F')
      // A POST without a session is sent to login too, and changes nothing.
      expect((await anonymous.post('/admin/users/2/active/', { is_active: '0' })).status).toBe(302)
      const form = await anonymous.get('/admin/login/')
      expect(form.status).toBe(200)
      expectSafePage(form)
      expect(anonymous.cookies.has('csrftoken')).toBe(true)
      // alice (not staff) with the right password: the same answer as a wrong one, no session.
      const refused = await anonymous.post('/admin/login/', { csrfmiddlewaretoken: csrfOf(form), username: 'alice', password: 'alice-pass-1' })
      expect(refused.status).toBe(200)
      expect(refused.html).toContain('Please enter the correct username and password for a staff account.')
      expect(anonymous.cookies.has('sessionid')).toBe(false)
      // alice logged in through the API's session login: the admin answers 403.
      const alice = new AdminClient(server.baseUrl)
      const csrf = await alice.request('GET', '/api/auth/csrf/', { headers: { Accept: 'application/json' } })
      const token = (JSON.parse(csrf.html) as { csrfToken: string }).csrfToken
      const apiLogin = await alice.request('POST', '/api/auth/login/', {
        body: JSON.stringify({ username: 'alice', password: 'alice-pass-1' }),
        headers: { 'Content-Type': 'application/json', 'X-CSRFToken': token, Accept: 'application/json' },
      })
      expect(apiLogin.status).toBe(200)
      const forbidden = await alice.get('/admin/')
      expect(forbidden.status).toBe(403)
      expectSafePage(forbidden)
      const changed = await alice.post('/admin/users/2/active/', { csrfmiddlewaretoken: csrfOf(forbidden), is_active: '0' })
      expect(changed.status).toBe(403)
      expect(await whoami(server, BOB_KEY)).toBe(200)
      // An open redirect through ?next= is not possible.
      const staff = new AdminClient(server.baseUrl)
      const page = await staff.get('/admin/login/?next=//evil.example/')
      const login = await staff.post('/admin/login/', { csrfmiddlewaretoken: csrfOf(page), username: 'admin', password: 'admin-pass-4', next: '//evil.example/' })
      expect(login.headers.get('location')).toBe('/admin/')
    } finally {
      await server.close()
    }
  })

  it('?next= with non-ASCII, DEL or a line break: the Location is Django\'s iri_to_uri of it, and the server keeps answering', async () => {
    const server = await start()
    try {
      const staff = await staffClient(server)
      for (const [next, sent] of [
        ['/admin/%E2%82%AC', '/admin/%E2%82%AC'],
        ['/admin/%7F', '/admin/%7F'],
        ['/admin/users/%0A', '/admin/users/%0A'],
        ['/admin/a%20b%22%3C', '/admin/a%20b%22%3C'],
        ['/admin/%25E2', '/admin/%E2'],
      ]) {
        const page = await staff.get(`/admin/login/?next=${next}`)
        expect(page.status, next).toBe(302)
        expect(page.headers.get('location'), next).toBe(sent)
      }
      // After a login form post too (303), with the field holding the character itself.
      const fresh = new AdminClient(server.baseUrl)
      const page = await fresh.get('/admin/login/?next=/admin/')
      const login = await fresh.post('/admin/login/', { csrfmiddlewaretoken: csrfOf(page), username: 'admin', password: 'admin-pass-4', next: '/admin/€\x7f' })
      expect(login.status).toBe(303)
      expect(login.headers.get('location')).toBe('/admin/%E2%82%AC%7F')
      expect((await staff.get('/admin/')).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('every change needs the CSRF token: without it, or from another origin, 403 and nothing changes', async () => {
    const server = await start()
    try {
      const staff = await staffClient(server)
      const page = await staff.get('/admin/users/2/')
      const token = csrfOf(page)
      for (const [path, fields] of [
        ['/admin/users/2/active/', { is_active: '0' }],
        ['/admin/users/2/token/', { action: 'regenerate' }],
        ['/admin/users/2/token/delete/', {}],
        ['/admin/users/2/password/', { password1: 'x-new-pass-9', password2: 'x-new-pass-9' }],
        ['/admin/users/2/sessions/end/', {}],
        ['/admin/users/add/', { username: 'mallory', password1: '', password2: '', is_active: '1' }],
        ['/admin/logout/', {}],
      ] as const) {
        const missing = await staff.post(path, fields)
        expect(missing.status, path).toBe(403)
        expect(missing.html, path).toContain('CSRF Failed: CSRF token missing or incorrect.')
        const foreign = await staff.post(path, { ...fields, csrfmiddlewaretoken: token }, { Origin: 'http://evil.example' })
        expect(foreign.status, path).toBe(403)
      }
      expect(await whoami(server, BOB_KEY)).toBe(200)
      expect(await server.ref.users.findByUsername('mallory')).toBeNull()
      expect((await staff.get('/admin/')).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('lists and searches users, creates one (its token from the key page), regenerates, deletes, and the listing never shows a key', async () => {
    const server = await start()
    try {
      const staff = await staffClient(server)
      const list = await staff.get('/admin/')
      expectSafePage(list)
      expect(list.html).toContain('4 users')
      const search = await staff.get('/admin/?q=AL')
      expect(search.html).toContain('>alice</a>')
      expect(search.html).not.toContain('>bob</a>')
      expect((await staff.get('/admin/?q=%25')).html).toContain('0 users')
      // Create a user with a password, through the form.
      const form = await staff.get('/admin/users/add/')
      const bad = await staff.post('/admin/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'no spaces', password1: 'a', password2: 'b' })
      expect(bad.status).toBe(400)
      expect(bad.html).toContain('Enter a valid username')
      expect(bad.html).toContain('didn’t match')
      const created = await staff.post('/admin/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'dora', password1: 'dora-pass-7', password2: 'dora-pass-7', is_active: '1' })
      expect(created.status).toBe(303)
      const dora = await server.ref.users.findByUsername('dora')
      expect(dora).toMatchObject({ isActive: true, isStaff: false })
      expect(created.headers.get('location')).toBe(`/admin/users/${String(dora?.id)}/?done=created`)
      const duplicate = await staff.post('/admin/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'dora', password1: '', password2: '' })
      expect(duplicate.html).toContain('A user with that username already exists.')
      // Her token: created on the key page, shown there once.
      const detail = await staff.get(created.headers.get('location') ?? '')
      expect(detail.html).toContain('The user was created.')
      expect(detail.html).toContain('No token.')
      const first = await staff.post(`/admin/users/${String(dora?.id)}/token/`, { csrfmiddlewaretoken: csrfOf(detail), action: 'create' })
      expectSafePage(first)
      const key = /id="token-key">([0-9a-f]{40})</.exec(first.html)?.[1] ?? ''
      expect(key).toMatch(/^[0-9a-f]{40}$/)
      expect(await whoami(server, key)).toBe(200)
      // "Create" again never shows the existing key.
      const twice = await staff.post(`/admin/users/${String(dora?.id)}/token/`, { csrfmiddlewaretoken: csrfOf(detail), action: 'create' })
      expect(twice.headers.get('location')).toBe(`/admin/users/${String(dora?.id)}/?done=token-exists`)
      // The user's page and the list show its date, never the key.
      const after = await staff.get(`/admin/users/${String(dora?.id)}/`)
      expect(after.html).toContain('A token created ')
      expect(after.html).not.toContain(key)
      expect((await staff.get('/admin/')).html).not.toContain(key)
      // Regenerate: a new key, the old one refused at once (the cache was told).
      const again = await staff.post(`/admin/users/${String(dora?.id)}/token/`, { csrfmiddlewaretoken: csrfOf(after), action: 'regenerate' })
      const second = /id="token-key">([0-9a-f]{40})</.exec(again.html)?.[1] ?? ''
      expect(second).not.toBe(key)
      expect(await whoami(server, key)).toBe(401)
      expect(await whoami(server, second)).toBe(200)
      // Delete.
      const deleted = await staff.post(`/admin/users/${String(dora?.id)}/token/delete/`, { csrfmiddlewaretoken: csrfOf(after) })
      expect(deleted.status).toBe(303)
      expect(deleted.headers.get('location')).toBe(`/admin/users/${String(dora?.id)}/?done=token-deleted`)
      expect(await whoami(server, second)).toBe(401)
    } finally {
      await server.close()
    }
  })

  it('deactivates and activates a user (the API refuses and accepts their token at once), sets a password, ends sessions, revokes a named token', async () => {
    const server = await start()
    try {
      // Cache bob's token in the API, then deactivate him in the admin.
      expect(await whoami(server, BOB_KEY)).toBe(200)
      const staff = await staffClient(server)
      const page = await staff.get('/admin/users/2/')
      const off = await staff.post('/admin/users/2/active/', { csrfmiddlewaretoken: csrfOf(page), is_active: '0' })
      expect(off.status).toBe(303)
      expect(await whoami(server, BOB_KEY)).toBe(401)
      expect((await staff.get('/admin/users/2/?done=deactivated')).html).toContain('their password, token and sessions stopped working')
      await staff.post('/admin/users/2/active/', { csrfmiddlewaretoken: csrfOf(page), is_active: '1' })
      expect(await whoami(server, BOB_KEY)).toBe(200)
      // A new password for alice: the old one stops working.
      const mismatch = await staff.post('/admin/users/1/password/', { csrfmiddlewaretoken: csrfOf(page), password1: 'one', password2: 'two' })
      expect(mismatch.status).toBe(400)
      const aliceBrowser = new AdminClient(server.baseUrl)
      const aliceCsrf = (JSON.parse((await aliceBrowser.request('GET', '/api/auth/csrf/', { headers: { Accept: 'application/json' } })).html) as { csrfToken: string }).csrfToken
      await aliceBrowser.request('POST', '/api/auth/login/', { body: JSON.stringify({ username: 'alice', password: 'alice-pass-1' }), headers: { 'Content-Type': 'application/json', 'X-CSRFToken': aliceCsrf, Accept: 'application/json' } })
      const aliceWho = async (): Promise<string> => (await aliceBrowser.request('GET', '/api/whoami/', { headers: { Accept: 'application/json' } })).html
      expect(await aliceWho()).toContain('"alice"')
      await staff.post('/admin/users/1/password/', { csrfmiddlewaretoken: csrfOf(page), password1: 'alice-new-8', password2: 'alice-new-8' })
      // Her API session ended with the change (her session auth hash moved on).
      expect(await aliceWho()).not.toContain('"alice"')
      expect(await server.ref.users.authenticate('alice', 'alice-pass-1')).toBeNull()
      expect(await server.ref.users.authenticate('alice', 'alice-new-8')).not.toBeNull()
      // Sessions: the staff member's second browser is logged out of everywhere by "end sessions" on admin (id 4).
      const other = await staffClient(server)
      expect((await other.get('/admin/')).status).toBe(200)
      await staff.post('/admin/users/4/sessions/end/', { csrfmiddlewaretoken: csrfOf(page) })
      expect((await other.get('/admin/')).status).toBe(302)
      expect((await staff.get('/admin/')).status).toBe(302)
      // Named tokens: listed without the token, revoked (refused at once).
      const named = await server.ref.namedTokens.create(2, { name: 'laptop' })
      expect(await whoami(server, named.key)).toBe(200)
      const again = await staffClient(server)
      const bob = await again.get('/admin/users/2/')
      expect(bob.html).toContain('laptop')
      expect(bob.html).toContain(named.info.displayPrefix)
      expect(bob.html).not.toContain(named.key)
      const revoked = await again.post(`/admin/users/2/named-tokens/${named.info.id}/revoke/`, { csrfmiddlewaretoken: csrfOf(bob) })
      expect(revoked.headers.get('location')).toBe('/admin/users/2/?done=revoked')
      expect(await whoami(server, named.key)).toBe(401)
      expect((await again.post(`/admin/users/2/named-tokens/${named.info.id}/revoke/`, { csrfmiddlewaretoken: csrfOf(bob) })).headers.get('location')).toBe('/admin/users/2/?done=revoke-none')
      // A staff member's own new password keeps their session and ends their others (Django's update_session_auth_hash).
      const second = await staffClient(server)
      const own = await again.post('/admin/users/4/password/', { csrfmiddlewaretoken: csrfOf(bob), password1: 'admin-new-9', password2: 'admin-new-9' })
      expect(own.headers.get('location')).toBe('/admin/users/4/?done=password')
      expect((await again.get('/admin/')).status).toBe(200)
      expect((await second.get('/admin/')).status).toBe(302)
    } finally {
      await server.close()
    }
  })

  it('a staff member who is not a superuser cannot change a staff or superuser account, nor be shown another user’s token key (issue 36 item 7)', async () => {
    const server = await start()
    try {
      const staffer = await server.ref.users.create({ username: 'staffer', password: 'staffer-pass-9', isStaff: true })
      const other = await server.ref.users.create({ username: 'other-staff', password: 'other-pass-9', isStaff: true })
      const plain = new AdminClient(server.baseUrl)
      expect((await adminLogin(plain, 'staffer', 'staffer-pass-9')).status).toBe(303)
      const page = await plain.get(`/admin/users/${other.id}/`)
      expect(page.status).toBe(200)
      expect(page.html).toContain('Only a superuser can change a staff or superuser account.')
      expect(page.html).not.toContain('/password/')
      const csrf = csrfOf(page)
      // Another staff member's password, flags, sessions: refused, nothing changed.
      for (const [path, fields] of [
        [`/admin/users/${other.id}/password/`, { password1: 'taken-over-1', password2: 'taken-over-1' }],
        ['/admin/users/4/password/', { password1: 'taken-over-1', password2: 'taken-over-1' }],
        [`/admin/users/${other.id}/active/`, { is_active: '0' }],
        [`/admin/users/${other.id}/sessions/end/`, {}],
        [`/admin/users/${other.id}/token/`, { action: 'create' }],
      ] as const) {
        const refused = await plain.post(path, { csrfmiddlewaretoken: csrf, ...fields })
        expect(refused.status, path).toBe(403)
        expect(refused.html).toContain('Only a superuser can change a staff or superuser account.')
      }
      expect(await server.ref.users.authenticate('other-staff', 'other-pass-9')).not.toBeNull()
      expect(await server.ref.users.authenticate('admin', 'admin-pass-4')).not.toBeNull()
      // A plain user's token key is shown to superusers only; their password a staff member may set.
      const key = await plain.post('/admin/users/1/token/', { csrfmiddlewaretoken: csrf, action: 'create' })
      expect(key.status).toBe(403)
      expect(key.html).toContain('Only a superuser can be shown a token key of another user.')
      expect(key.html).not.toMatch(/id="token-key"/)
      expect((await plain.post('/admin/users/1/password/', { csrfmiddlewaretoken: csrf, password1: 'alice-new-7', password2: 'alice-new-7' })).status).toBe(303)
      // No staff account from the add form either.
      const add = await plain.post('/admin/users/add/', { csrfmiddlewaretoken: csrf, username: 'sneaky', is_active: '1', is_staff: '1' })
      expect(add.status).toBe(400)
      expect(await server.ref.users.findByUsername('sneaky')).toBeNull()
      // The superuser may: another staff member's password.
      const admin = await staffClient(server)
      const adminPage = await admin.get(`/admin/users/${staffer.id}/`)
      expect(adminPage.html).toContain('/password/')
      expect((await admin.post(`/admin/users/${staffer.id}/password/`, { csrfmiddlewaretoken: csrfOf(adminPage), password1: 'fresh-start-9', password2: 'fresh-start-9' })).status).toBe(303)
      expect(await server.ref.users.authenticate('staffer', 'fresh-start-9')).not.toBeNull()
    } finally {
      await server.close()
    }
  })

  it('a superuser who is not staff is changed by superusers only: a staff member cannot set their password and log in as them (issue 45 item 16)', async () => {
    const server = await start()
    try {
      // Reachable through revoke-staff, grant-superuser on a non-staff user, or import-django.
      const root = await server.ref.users.create({ username: 'root-not-staff', password: 'root-pass-9', isSuperuser: true })
      expect(root.isStaff).toBe(false)
      await server.ref.users.create({ username: 'staffer', password: 'staffer-pass-9', isStaff: true })
      const staffer = new AdminClient(server.baseUrl)
      expect((await adminLogin(staffer, 'staffer', 'staffer-pass-9')).status).toBe(303)
      const page = await staffer.get(`/admin/users/${root.id}/`)
      expect(page.status).toBe(200)
      expect(page.html).toContain('Only a superuser can change a staff or superuser account.')
      expect(page.html).not.toContain('/password/')
      const csrf = csrfOf(page)
      const refused = await staffer.post(`/admin/users/${root.id}/password/`, { csrfmiddlewaretoken: csrf, password1: 'taken-over-1', password2: 'taken-over-1' })
      expect(refused.status).toBe(403)
      expect(refused.html).toContain('Only a superuser can change a staff or superuser account.')
      for (const [path, fields] of [
        [`/admin/users/${root.id}/active/`, { is_active: '0' }],
        [`/admin/users/${root.id}/sessions/end/`, {}],
      ] as const) {
        expect((await staffer.post(path, { csrfmiddlewaretoken: csrf, ...fields })).status, path).toBe(403)
      }
      // The takeover the refusal prevents: logging in with the password the staff member chose.
      const obtain = await fetch(`${server.baseUrl}/api/auth/token/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ username: 'root-not-staff', password: 'taken-over-1' }),
      })
      await obtain.arrayBuffer()
      expect(obtain.status).toBe(400)
      expect(await server.ref.users.authenticate('root-not-staff', 'root-pass-9')).not.toBeNull()
      expect((await server.ref.users.findById(root.id))?.isActive).toBe(true)
    } finally {
      await server.close()
    }
  })

  it('usernames are normalised with NFKC on creation: fullwidth ａｄｍｉｎ is admin, which exists (issue 36 item 6)', async () => {
    const server = await start()
    try {
      const admin = await staffClient(server)
      const form = await admin.get('/admin/users/add/')
      const add = await admin.post('/admin/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'ａｄｍｉｎ', is_active: '1' })
      expect(add.status).toBe(400)
      expect(add.html).toContain('A user with that username already exists.')
      expect(await server.ref.users.findByUsername('ａｄｍｉｎ')).toBeNull()
      const made = await admin.post('/admin/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'ｄａｎａ', is_active: '1' })
      expect(made.status).toBe(303)
      expect(await server.ref.users.findByUsername('dana')).not.toBeNull()
      expect(await server.ref.users.findByUsername('ｄａｎａ')).toBeNull()
    } finally {
      await server.close()
    }
  })

  it('bad input is a 4xx page, never a 500: unknown users, malformed ids and bodies, other media types', async () => {
    const server = await start()
    try {
      const staff = await staffClient(server)
      const page = await staff.get('/admin/')
      const token = csrfOf(page)
      for (const path of ['/admin/users/999/', '/admin/users/abc/', '/admin/users/99999999999999999999999/', '/admin/users/%00/']) {
        expect((await staff.get(path)).status, path).toBe(404)
      }
      expect((await staff.post('/admin/users/999/active/', { csrfmiddlewaretoken: token, is_active: '0' })).status).toBe(404)
      // An action without its field (or with another value) changes nothing.
      expect((await staff.post('/admin/users/2/active/', { csrfmiddlewaretoken: token })).status).toBe(400)
      expect((await staff.post('/admin/users/2/active/', { csrfmiddlewaretoken: token, is_active: 'no' })).status).toBe(400)
      expect((await staff.post('/admin/users/2/named-tokens/abc/revoke/', { csrfmiddlewaretoken: token })).headers.get('location')).toBe('/admin/users/2/?done=revoke-none')
      const json = await staff.request('POST', '/admin/users/2/active/', { body: '{"is_active": ', headers: { 'Content-Type': 'application/json', 'X-CSRFToken': token, Origin: server.baseUrl } })
      expect(json.status).toBe(400)
      expectSafePage(json)
      const xml = await staff.request('POST', '/admin/users/2/active/', { body: '<x/>', headers: { 'Content-Type': 'application/xml', 'X-CSRFToken': token, Origin: server.baseUrl } })
      expect(xml.status).toBe(415)
      expect((await staff.get('/admin/?page=abc&q=%00')).status).toBe(200)
      // A DELETE is unsafe: Django's CSRF rule comes first (403), as in DRF; with the token, 405.
      expect((await staff.request('DELETE', '/admin/users/2/')).status).toBe(403)
      expect((await staff.request('DELETE', '/admin/users/2/', { headers: { 'X-CSRFToken': token, Origin: server.baseUrl } })).status).toBe(405)
      expect(await whoami(server, BOB_KEY)).toBe(200)
    } finally {
      await server.close()
    }
  })
}

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')
const postgres = BACKENDS.find((b) => b.name === 'postgres')

for (const framework of FRAMEWORKS) {
  describe(`admin pages on ${framework} (SQLite)`, () => {
    adminTests(async () => startReference((await sqlite?.create()) as TestDatabase, CACHE, { framework: framework satisfies Framework }))
  })
}

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', postgres?.available === true))('admin pages on fastify (PostgreSQL)', () => {
  adminTests(async () => startReference((await postgres?.create()) as TestDatabase, CACHE, { framework: 'fastify' }))
})

describe.skipIf(unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('admin pages on fastify (SQLite, sessions in Redis)', () => {
  adminTests(async () => {
    const prefix = uniquePrefix()
    const server = await startReference((await sqlite?.create()) as TestDatabase, { ...CACHE, redisUrl: REDIS_URL, redisPrefix: prefix }, { framework: 'fastify' })
    // The sessions this test wrote go with it.
    return { ...server, close: async () => (await server.close(), await deletePrefix(REDIS_URL ?? '', prefix)) }
  })
})
