/**
 * The reference API on plain node:http (src/adapters/node-http) over a real socket:
 * the same ApiView objects the Fastify app mounts, routed by the node:http `router`.
 * Checks the wire facts the Fastify conformance tests check, then sends the oracle's
 * request list (plus adapter edge cases) to a Fastify and a node:http server, each on
 * its own freshly seeded SQLite database, and requires equal statuses, headers and
 * byte-identical bodies (generated secrets masked).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildApp } from '../../examples/reference-api/app.js'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import type * as FastifyAdapter from '../../src/adapters/fastify/index.js'
import { router } from '../../src/adapters/node-http/index.js'
import type { ApiView } from '../../src/core/view.js'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'
import { startReference, TEST_SCRYPT, type RunningReference } from '../helpers/reference-server.js'
import { TEST_SECRET } from '../helpers/secrets.js'
import { exchange, login, send, setCookieValue, type ExchangeRequest, type ExchangeResult, type SessionCookies } from '../oracle/http-exchange.js'
import { ALL_REQUESTS, BOB_TOKEN, CREDENTIALS } from '../oracle/requests.js'

// One secret for both servers (separate databases would each make their own), so cursors compare equal.
/** The reference API's default hosts, plus the name the link tests use. */
const HOSTS = ['localhost', '127.0.0.1', '[::1]', 'api.example']

// Not a mock: `mountView` still mounts on Fastify; it also records each app's views
// so the node:http server runs exactly the views the reference routes build.
const mounted = vi.hoisted(() => new WeakMap<object, Map<string, ApiView>>())
vi.mock('../../src/adapters/fastify/index.js', async (importOriginal) => {
  const original = await importOriginal<typeof FastifyAdapter>()
  return {
    ...original,
    mountView: (app: FastifyInstance, path: string, view: ApiView): void => {
      const views = mounted.get(app) ?? new Map<string, ApiView>()
      mounted.set(app, views.set(path, view))
      original.mountView(app, path, view)
    },
  }
})

interface NodeReference {
  readonly baseUrl: string
  readonly ref: ReferenceContext
  close(): Promise<void>
}

/** The reference API's views on node:http, on a fresh migrated and seeded database. */
async function startNodeReference(database: TestDatabase): Promise<NodeReference> {
  const ref = await openReferenceContext({ databaseUrl: database.url, allowedHosts: HOSTS, secrets: [TEST_SECRET], scrypt: TEST_SCRYPT })
  const app = await buildApp(ref) // never listens: only its views are used
  const views = mounted.get(app)
  if (views === undefined || views.size === 0) throw new Error('no views recorded')
  const server: Server = createServer(router(Object.fromEntries(views)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    ref,
    close: async () => {
      await new Promise((resolve) => server.close(resolve))
      await app.close()
      await ref.close()
      await database.drop()
    },
  }
}

const NOT_PROVIDED = { detail: 'Authentication credentials were not provided.' }
const JSON_HEADERS = { 'Content-Type': 'application/json' }
const ALICE = JSON.stringify({ username: 'alice', password: 'alice-pass-1' })
const OVER_LIMIT = JSON.stringify({ username: 'alice', password: 'x'.repeat(1024 * 1024) })

let fastify: RunningReference
let node: NodeReference

beforeAll(async () => {
  ;[fastify, node] = await Promise.all([startReference(freshSqlite(), { allowedHosts: HOSTS, secrets: [TEST_SECRET] }), startNodeReference(freshSqlite())])
}, 60_000)
afterAll(async () => {
  await Promise.all([fastify?.close(), node?.close()])
})

describe('the reference API on node:http', () => {
  const get = (path: string, headers: Record<string, string> = {}): Promise<ExchangeResult> => send(node.baseUrl, 'GET', path, headers)

  it('answers the identity routes with DRF statuses, challenges and Allow', async () => {
    const anonymous = await get('/api/whoami/')
    expect([anonymous.status, anonymous.body]).toEqual([200, { username: null, authenticated: false, auth: null }])
    expect(anonymous.headers['allow']).toBe('GET, HEAD, OPTIONS')
    expect(anonymous.headers['content-type']).toBe('application/json')
    const bob = await get('/api/whoami/', { Authorization: `Token ${BOB_TOKEN}` })
    expect(bob.body).toEqual({ username: 'bob', authenticated: true, auth: BOB_TOKEN })

    const denied = await get('/api/private/')
    expect([denied.status, denied.body, denied.headers['www-authenticate']]).toEqual([401, NOT_PROVIDED, 'Token'])
    const basicOnly = await get('/api/schemes/basic/')
    expect([basicOnly.status, basicOnly.headers['www-authenticate']]).toEqual([401, 'Basic realm="api"'])
    const alice = await get('/api/schemes/basic/', { Authorization: CREDENTIALS['basic alice'] ?? '' })
    expect([alice.status, alice.body]).toEqual([200, { username: 'alice', authenticated: true, auth: null }])

    const head = await send(node.baseUrl, 'HEAD', '/api/whoami/')
    expect([head.status, head.text]).toEqual([200, ''])
    const deleted = await send(node.baseUrl, 'DELETE', '/api/whoami/')
    expect([deleted.status, deleted.body]).toEqual([405, { detail: 'Method "DELETE" not allowed.' }])
  })

  it('logs in with Set-Cookie and enforces CSRF on the session route', async () => {
    const cookies: SessionCookies | null = await login(node.baseUrl, 'alice')
    expect(cookies).not.toBeNull()
    const cookie = `sessionid=${cookies?.sessionid}; csrftoken=${cookies?.csrftoken}`
    const withToken = await send(node.baseUrl, 'POST', '/api/schemes/session/', { Cookie: cookie, 'X-CSRFToken': cookies?.csrftoken ?? '' })
    expect([withToken.status, withToken.body]).toEqual([200, { username: 'alice', authenticated: true, auth: null }])
    const withoutToken = await send(node.baseUrl, 'POST', '/api/schemes/session/', { Cookie: cookie })
    expect(withoutToken.status).toBe(403)
    expect((withoutToken.body as { detail: string }).detail).toMatch(/^CSRF Failed/)
  })

  it('obtains a token and answers 405, 406, 415, 400 and 413 like DRF', async () => {
    const post = (headers: Record<string, string>, body: string): Promise<ExchangeResult> =>
      send(node.baseUrl, 'POST', '/api/auth/token/', headers, body)
    const ok = await post(JSON_HEADERS, ALICE)
    expect(ok.status).toBe(200)
    expect((ok.body as { token: string }).token).toMatch(/^[0-9a-f]{40}$/)
    expect((await send(node.baseUrl, 'DELETE', '/api/auth/token/')).status).toBe(405)
    const html = await post({ ...JSON_HEADERS, Accept: 'text/html' }, ALICE)
    expect([html.status, html.body]).toEqual([406, { detail: 'Could not satisfy the request Accept header.' }])
    const text = await post({ 'Content-Type': 'text/plain' }, 'hello')
    expect([text.status, text.body]).toEqual([415, { detail: 'Unsupported media type "text/plain" in request.' }])
    const malformed = await post(JSON_HEADERS, '{"username": ')
    expect(malformed.status).toBe(400)
    expect((malformed.body as { detail: string }).detail).toMatch(/^JSON parse error - /)
    const big = await post(JSON_HEADERS, OVER_LIMIT)
    expect([big.status, big.body]).toEqual([413, { detail: 'Request body is too large.' }])
  })

  it('answers a malformed Host 400 and an unknown path 404', async () => {
    const badHost = await get('/api/whoami/', { Host: 'exa mple.com' })
    expect([badHost.status, badHost.body]).toEqual([400, { detail: 'Invalid Host header.' }])
    for (const path of ['/api/nope/', '/api/whoami', '/']) {
      const missing = await get(path)
      expect([missing.status, missing.body], path).toEqual([404, { detail: 'Not found.' }])
    }
  })

  it('answers a Host outside allowedHosts 400 before building any link', async () => {
    for (const host of ['evil.example', 'api.example.evil', 'localhost.evil:80']) {
      const page = await get('/api/articles/', { Host: host })
      expect([host, page.status, page.body]).toEqual([host, 400, { detail: 'Invalid Host header.' }])
    }
  })

  it('builds absolute page links with the request Host', async () => {
    const page = await get('/api/articles/?author=alice', { Host: 'api.example:8080' })
    expect(page.status).toBe(200)
    const body = page.body as { count: number; next: string | null; previous: string | null; results: unknown[] }
    expect(body.results.length).toBe(10)
    expect(body.next).toBe('http://api.example:8080/api/articles/?author=alice&page=2')
    expect(body.previous).toBeNull()
  })
})

// Values that legitimately differ between two servers: their ports, generated keys, CSRF masks,
// cookie values, and the creation time of a new article (the seed's are 2024).
const SEED_KEYS = new Set([BOB_TOKEN, 'ca7013ca7013ca7013ca7013ca7013ca7013ca70'])
const maskText = (text: string): string =>
  text
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://<server>')
    .replace(/\b(?!2024-)\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<now>')
    .replace(/\b[0-9a-f]{40}\b/g, (key) => (SEED_KEYS.has(key) ? key : '<token>'))
    .replace(/"csrfToken":\s*"[^"]*"/g, '"csrfToken": "<csrf>"')
const maskCookies = (value: string | undefined): string[] | null =>
  value === undefined
    ? null
    : value.split('\n').map((line) => line.replace(/^([^=]*)=[^;]*/, '$1=<value>').replace(/expires=[^;]*/i, 'expires=<date>'))

/**
 * What both servers must agree on. `viewLevel: false` drops Allow and Vary: Fastify
 * refuses an oversized body before routing, node:http reads bodies lazily so the view
 * answers the 413 (with its Allow and Vary), as Django raises only when the body is read.
 */
function wire(result: ExchangeResult, viewLevel = true): Record<string, unknown> {
  const h = result.headers
  const mask = (value: string | undefined): string | null => (value === undefined ? null : maskText(value))
  return {
    status: result.status,
    'content-type': h['content-type'] ?? null,
    'www-authenticate': h['www-authenticate'] ?? null,
    ...(viewLevel ? { allow: h['allow'] ?? null, vary: h['vary'] ?? null } : {}),
    'retry-after': h['retry-after'] ?? null,
    link: mask(h['link']),
    'set-cookie': maskCookies(h['set-cookie']),
    body: maskText(result.text),
  }
}

const EXTRA_REQUESTS: readonly ExchangeRequest[] = [
  { name: 'articles page 1', method: 'GET', path: '/api/articles/' },
  { name: 'articles page 2 of alice', method: 'GET', path: '/api/articles/?author=alice&page=2' },
  { name: 'articles page out of range', method: 'GET', path: '/api/articles/?page=999' },
  { name: 'articles other Host', method: 'GET', path: '/api/articles/', headers: { Host: 'api.example:8080' } },
  { name: 'articles offset', method: 'GET', path: '/api/articles/offset/?limit=3&offset=4' },
  { name: 'articles cursor', method: 'GET', path: '/api/articles/cursor/?page_size=3' },
  { name: 'articles bad cursor', method: 'GET', path: '/api/articles/cursor/?cursor=zzz' },
  { name: 'articles link header', method: 'GET', path: '/api/articles/link-header/?page=2' },
  { name: 'articles nested', method: 'GET', path: '/api/articles/nested/' },
  { name: 'articles html', method: 'GET', path: '/api/articles/?page=2', headers: { Accept: 'text/html' } },
  { name: 'articles POST anonymous', method: 'POST', path: '/api/articles/', headers: JSON_HEADERS, body: '{"title": "x", "score": 1}' },
  { name: 'articles POST bob', method: 'POST', path: '/api/articles/', headers: { ...JSON_HEADERS, Authorization: `Token ${BOB_TOKEN}` }, body: '{"title": " t ", "score": "7"}' },
  { name: 'articles OPTIONS', method: 'OPTIONS', path: '/api/articles/' },
  { name: 'articles HEAD', method: 'HEAD', path: '/api/articles/' },
  { name: 'token 413', method: 'POST', path: '/api/auth/token/', headers: JSON_HEADERS, body: OVER_LIMIT },
  { name: 'token text/plain 415', method: 'POST', path: '/api/auth/token/', headers: { 'Content-Type': 'text/plain' }, body: 'x' },
  { name: 'token malformed JSON', method: 'POST', path: '/api/auth/token/', headers: JSON_HEADERS, body: '{"a": [1,' },
  { name: 'token form body', method: 'POST', path: '/api/auth/token/', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'username=alice&password=alice-pass-1' },
  { name: 'token Accept text/html 406', method: 'POST', path: '/api/auth/token/', headers: { ...JSON_HEADERS, Accept: 'text/html' }, body: ALICE },
  { name: 'malformed Host', method: 'GET', path: '/api/whoami/', headers: { Host: 'exa mple.com' } },
  { name: 'unknown path', method: 'GET', path: '/api/nope/' },
  { name: 'no trailing slash', method: 'GET', path: '/api/whoami' },
  { name: 'dot segment path', method: 'GET', path: '/api/x/../whoami/' },
  { name: 'percent-encoded query', method: 'GET', path: '/api/articles/?author=%61lice&page=%32' },
]

describe('node:http and Fastify give the same answers', () => {
  it(`for the ${ALL_REQUESTS.length + EXTRA_REQUESTS.length} oracle and adapter requests`, async () => {
    const sessions = new Map<string, SessionCookies | null>()
    const mismatches: string[] = []
    // Sequential, same order on both: some requests change state (tokens, users, articles).
    for (const request of [...ALL_REQUESTS, ...EXTRA_REQUESTS]) {
      const viewLevel = request.name !== 'token 413'
      const a = wire(await exchange(fastify.baseUrl, request, sessions), viewLevel)
      const b = wire(await exchange(node.baseUrl, request, sessions), viewLevel)
      if (JSON.stringify(a) !== JSON.stringify(b)) mismatches.push(`${request.name}\n  fastify: ${JSON.stringify(a)}\n  node:    ${JSON.stringify(b)}`)
    }
    expect(mismatches).toEqual([])
    // The masks did not hide everything: session logins really set cookies on both.
    expect(setCookieValue(await send(node.baseUrl, 'GET', '/api/auth/csrf/'), 'csrftoken')).not.toBeNull()
  }, 120_000)
})
