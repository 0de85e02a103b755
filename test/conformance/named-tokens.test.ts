// The safer token mode of the reference API (/api/auth/tokens/…) over a real socket, on
// SQLite and (when DATABASE_URL points at it) PostgreSQL, on each framework: create with
// Basic, use, list, revoke one, revoke all; expired, revoked and unknown tokens all answer
// the same 401; the table holds no usable token; DRF tokens keep working beside them. The
// server caches token lookups (MemoryTokenCache), so revocations must invalidate it.
import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

const BOB_KEY = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const BOB_BASIC = `Basic ${Buffer.from('bob:bob-pass-2').toString('base64')}`
const ALICE_BASIC = `Basic ${Buffer.from('alice:alice-pass-1').toString('base64')}`
const JSON_TYPE = { 'content-type': 'application/json' }
const INVALID_TOKEN = '{"detail":"Invalid token."}'

interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: unknown
}

interface TokenJson {
  readonly id: number
  readonly name: string
  readonly prefix: string
  readonly created: string
  readonly expires: string | null
  readonly last_used: string | null
  readonly token?: string
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`named tokens (${backend.name})`, () => {
    let server: RunningReference

    beforeAll(async () => {
      // With a token cache whose TTL outlasts the run: a revocation is seen only through invalidation.
      server = await startReference(await backend.create(), { tokenCacheTtlMs: 3_600_000 })
    })
    afterAll(async () => {
      await server?.close()
    })

    async function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
      const res = await fetch(server.baseUrl + path, { method, headers, ...(body === undefined ? {} : { body }) })
      const text = await res.text()
      return { status: res.status, headers: res.headers, text, json: text === '' || text.startsWith('<') ? undefined : (JSON.parse(text) as unknown) }
    }

    async function create(auth: string, body: Record<string, unknown>): Promise<TokenJson> {
      const reply = await send('POST', '/api/auth/tokens/', { Authorization: auth, ...JSON_TYPE }, JSON.stringify(body))
      expect(reply.status).toBe(201)
      // Shown once: no cache may keep it.
      expect(reply.headers.get('cache-control')).toBe('no-store')
      return reply.json as TokenJson
    }

    const db = (): Kysely<unknown> => server.ref.db as unknown as Kysely<unknown>

    it('create with Basic: 201 with the token shown once; it authenticates; the list shows it without the secret', async () => {
      const created = await create(BOB_BASIC, { name: 'laptop', expires_in: 3600 })
      expect(created).toMatchObject({ name: 'laptop', last_used: null })
      expect(created.token).toMatch(/^gth_[A-Za-z0-9]{40}$/)
      const token = created.token ?? ''
      expect(created.prefix).toBe(token.slice(0, 10))
      const expires = Date.parse(created.expires ?? '') - Date.parse(created.created)
      expect(expires).toBe(3_600_000)

      const private_ = await send('GET', '/api/private/', { Authorization: `Token ${token}` })
      expect(private_.status).toBe(200)
      expect(private_.json).toEqual({ username: 'bob', authenticated: true, auth: token })

      const listed = await send('GET', '/api/auth/tokens/', { Authorization: `Token ${token}` })
      expect(listed.status).toBe(200)
      expect(listed.text).not.toContain(token)
      const mine = (listed.json as TokenJson[]).find((t) => t.id === created.id)
      expect(mine).toMatchObject({ id: created.id, name: 'laptop', prefix: created.prefix, created: created.created, expires: created.expires })
      expect(mine?.last_used).not.toBeNull()
      expect(Object.keys(mine ?? {}).sort()).toEqual(['created', 'expires', 'id', 'last_used', 'name', 'prefix'])
    })

    it('a token-authenticated request cannot mint a token that outlives its own: no expiry or a later one is capped at its expiry', async () => {
      const parent = await create(BOB_BASIC, { name: 'hour', expires_in: 3600 })
      const auth = `Token ${parent.token ?? ''}`
      const forever = await create(auth, { name: 'forever' })
      expect(forever.expires).toBe(parent.expires)
      const later = await create(auth, { name: 'day', expires_in: 86_400 })
      expect(later.expires).toBe(parent.expires)
      const sooner = await create(auth, { name: 'minute', expires_in: 60 })
      expect(Date.parse(sooner.expires ?? '') - Date.parse(sooner.created)).toBe(60_000)
      // The listing agrees with what the answers said; a password or a DRF token is not capped.
      const listed = (await send('GET', '/api/auth/tokens/', { Authorization: auth })).json as TokenJson[]
      expect(listed.find((t) => t.id === forever.id)?.expires).toBe(parent.expires)
      expect((await create(BOB_BASIC, { name: 'by password' })).expires).toBeNull()
      expect((await create(`Token ${BOB_KEY}`, { name: 'by DRF token' })).expires).toBeNull()
    })

    it('answers Accept: text/html with the browsable page, as every view does; the secret page is not cached either', async () => {
      const html = await send('POST', '/api/auth/tokens/', { Authorization: BOB_BASIC, Accept: 'text/html', ...JSON_TYPE }, JSON.stringify({ name: 'from-a-browser' }))
      expect(html.status).toBe(201)
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(html.headers.get('cache-control')).toBe('no-store')
      expect(html.headers.get('content-security-policy')).toContain("default-src 'none'")
      expect(html.text).toContain('HTTP 201 Created')
      expect(html.text).toMatch(/&#34;token&#34;: &#34;gth_[A-Za-z0-9]{40}&#34;/)
      const anonymous = await send('GET', '/api/auth/tokens/', { Accept: 'text/html' })
      expect(anonymous.status).toBe(401)
      expect(anonymous.headers.get('content-type')).toBe('text/html; charset=utf-8')
    })

    it('the table holds digests only: no token, nor its secret part, appears in any column', async () => {
      const created = await create(BOB_BASIC, { name: 'leak-check' })
      const token = created.token ?? ''
      const rows = JSON.stringify((await sql`select * from gatehouse_named_tokens`.execute(db())).rows)
      expect(rows).toContain(created.prefix)
      expect(rows).not.toContain(token)
      expect(rows).not.toContain(token.slice(10))
      expect(rows).not.toContain(token.slice(4, 30))
    })

    it('revoked, expired and unknown tokens all answer 401 {"detail":"Invalid token."} with WWW-Authenticate: Token', async () => {
      const revoked = await create(BOB_BASIC, { name: 'to-revoke' })
      const expired = await create(BOB_BASIC, { name: 'to-expire', expires_in: 60 })
      // Used once, so the cache holds it when it is revoked.
      expect((await send('GET', '/api/private/', { Authorization: `Token ${revoked.token ?? ''}` })).status).toBe(200)
      expect((await send('DELETE', `/api/auth/tokens/${revoked.id}/`, { Authorization: BOB_BASIC })).status).toBe(204)
      const past = backend.name === 'postgres' ? new Date(Date.now() - 1000) : new Date(Date.now() - 1000).toISOString()
      await sql`update gatehouse_named_tokens set expires_at = ${past} where id = ${expired.id}`.execute(db())
      for (const token of [revoked.token, expired.token, `gth_${'x'.repeat(40)}`]) {
        const reply = await send('GET', '/api/private/', { Authorization: `Token ${token ?? ''}` })
        expect(reply.status).toBe(401)
        expect(reply.text).toBe(INVALID_TOKEN)
        expect(reply.headers.get('www-authenticate')).toBe('Token')
      }
      // The expired token is still listed (until revoked), with its expiry.
      const listed = (await send('GET', '/api/auth/tokens/', { Authorization: BOB_BASIC })).json as TokenJson[]
      expect(listed.map((t) => t.id)).toContain(expired.id)
      expect(listed.map((t) => t.id)).not.toContain(revoked.id)
    })

    it("another user's token id, a non-id and an unknown id are 404; revoke needs authentication", async () => {
      const alices = await create(ALICE_BASIC, { name: 'alices' })
      for (const path of [`/api/auth/tokens/${alices.id}/`, '/api/auth/tokens/abc/', '/api/auth/tokens/99999999999/', '/api/auth/tokens/0/']) {
        const reply = await send('DELETE', path, { Authorization: BOB_BASIC })
        expect(reply.status).toBe(404)
        expect(reply.json).toEqual({ detail: 'Not found.' })
      }
      expect((await send('GET', '/api/private/', { Authorization: `Token ${alices.token ?? ''}` })).status).toBe(200)
      const anonymous = await send('DELETE', `/api/auth/tokens/${alices.id}/`)
      expect(anonymous.status).toBe(401)
      expect(anonymous.json).toEqual({ detail: 'Authentication credentials were not provided.' })
      expect((await send('GET', '/api/auth/tokens/')).status).toBe(401)
    })

    it('bad input is a DRF-style 400 per field', async () => {
      const post = (body: string): Promise<Reply> => send('POST', '/api/auth/tokens/', { Authorization: BOB_BASIC, ...JSON_TYPE }, body)
      expect((await post('{}')).json).toEqual({ name: ['This field is required.'] })
      expect((await post(JSON.stringify({ name: 'x'.repeat(101), expires_in: 'soon' }))).json).toEqual({
        name: ['Ensure this field has no more than 100 characters.'],
        expires_in: ['A valid integer is required.'],
      })
      const negative = await post(JSON.stringify({ name: 'n', expires_in: -1 }))
      expect(negative.status).toBe(400)
      expect(negative.json).toEqual({ expires_in: ['Ensure this value is greater than or equal to 1.'] })
      expect((await post('[1]')).json).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] })
      const form = await send('POST', '/api/auth/tokens/', { Authorization: BOB_BASIC, 'content-type': 'application/x-www-form-urlencoded' }, 'name=form&expires_in=120')
      expect(form.status).toBe(201)
      expect(form.json).toMatchObject({ name: 'form' })
      // DRF's IntegerField(allow_null=True) reads a blank form value as null: no expiry.
      const blank = await send('POST', '/api/auth/tokens/', { Authorization: BOB_BASIC, 'content-type': 'application/x-www-form-urlencoded' }, 'name=blank&expires_in=')
      expect([blank.status, blank.json]).toMatchObject([201, { name: 'blank', expires: null }])
    })

    it('the cap of 100 is a limit: 30 concurrent POSTs from 95 tokens end at exactly 100 (5 × 201, 25 × 403 with knox\'s message)', async () => {
      const user = await server.ref.users.create({ username: 'capped', password: null })
      const held = []
      for (let i = 0; i < 95; i++) held.push(await server.ref.namedTokens.create(user.id, { name: `held ${i}` }))
      const auth = { Authorization: `Token ${held[0]?.key ?? ''}`, ...JSON_TYPE }
      const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => send('POST', '/api/auth/tokens/', auth, JSON.stringify({ name: `burst ${i}` }))))
      expect(replies.map((r) => r.status).sort()).toEqual([...Array<number>(5).fill(201), ...Array<number>(25).fill(403)])
      for (const r of replies.filter((r) => r.status === 403)) expect(r.json).toEqual({ detail: 'Maximum amount of tokens allowed per user exceeded.' })
      expect(await server.ref.namedTokens.list(user.id)).toHaveLength(100)
      expect((await send('POST', '/api/auth/tokens/', auth, JSON.stringify({ name: 'one more' }))).status).toBe(403)
    })

    it('revoke-all: every named token of the requester stops working; other users and DRF tokens go on', async () => {
      const alices = await create(ALICE_BASIC, { name: 'alice-keeps' })
      const first = await create(BOB_BASIC, { name: 'first' })
      const second = await create(BOB_BASIC, { name: 'second' })
      expect((await send('GET', '/api/private/', { Authorization: `Token ${second.token ?? ''}` })).status).toBe(200)
      const reply = await send('POST', '/api/auth/tokens/revoke-all/', { Authorization: `Token ${first.token ?? ''}` })
      expect(reply.status).toBe(204)
      expect(reply.text).toBe('')
      for (const token of [first.token, second.token]) {
        expect((await send('GET', '/api/private/', { Authorization: `Token ${token ?? ''}` })).text).toBe(INVALID_TOKEN)
      }
      expect((await send('GET', '/api/auth/tokens/', { Authorization: BOB_BASIC })).json).toEqual([])
      expect((await send('GET', '/api/private/', { Authorization: `Token ${alices.token ?? ''}` })).status).toBe(200)
      expect((await send('GET', '/api/private/', { Authorization: `Token ${BOB_KEY}` })).json).toEqual({ username: 'bob', authenticated: true, auth: BOB_KEY })
      expect((await send('DELETE', '/api/auth/tokens/revoke-all/', { Authorization: BOB_BASIC })).status).toBe(405)
    })
  })
}
