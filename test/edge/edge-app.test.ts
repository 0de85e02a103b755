/**
 * The Cloudflare-Workers-style app of docs/runtimes.md (examples/edge-worker/worker.ts), bundled for the
 * edge and run in workerd with no Node compatibility, answers as gatehouse answers on Node:
 * token authentication, permissions, a throttle, a page with links and DRF's error bodies,
 * over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleWorker, type ModuleBundle } from './worker-bundle.js'
import { startWorker, type RunningWorker } from './workerd.js'

const ENTRY = 'examples/edge-worker/worker.ts'
const ADA = { Authorization: 'Token ada-token' }
const BOB = { Authorization: 'Token bob-token' }

let bundle: ModuleBundle
let worker: RunningWorker

beforeAll(async () => {
  bundle = await bundleWorker(ENTRY)
  worker = await startWorker(bundle.code)
}, 120_000)

afterAll(async () => {
  await worker?.stop()
})

/** A request to the worker over HTTP: status, headers, parsed JSON body. */
async function call(path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(new URL(path, worker.url), init)
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) }
}

describe('the edge build', () => {
  it('reaches gatehouse and Hono and no node: module', () => {
    expect(bundle.inputs).toContain('src/index.ts')
    expect(bundle.inputs).toContain('src/adapters/hono/index.ts')
    expect(bundle.inputs.some((input) => input.startsWith('node_modules/hono/'))).toBe(true)
    expect(bundle.inputs.filter((input) => input.startsWith('node:'))).toEqual([])
    expect(bundle.code).not.toMatch(/\bfrom\s*["']node:|\brequire\(\s*["']node:|\bimport\(\s*["']node:/)
  })
})

describe('the app in workerd', () => {
  it('answers an authenticated DRF-style view', async () => {
    const me = await call('/me/', { headers: ADA })
    expect(me.status).toBe(200)
    expect(me.headers.get('content-type')).toBe('application/json')
    expect(me.body).toEqual({ username: 'ada' })
  })

  it('answers 401 with WWW-Authenticate without credentials and with an unknown token', async () => {
    const anonymous = await call('/books/')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Token')
    expect(anonymous.headers.get('content-type')).toBe('application/json')
    expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' })

    const unknown = await call('/me/', { headers: { Authorization: 'Token nobody' } })
    expect(unknown.status).toBe(401)
    expect(unknown.headers.get('www-authenticate')).toBe('Token')
    expect(unknown.body).toEqual({ detail: 'Invalid token.' })
  })

  it('pages the list with next and previous links on the worker URL', async () => {
    const first = await call('/books/', { headers: BOB })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      count: 3,
      next: new URL('/books/?page=2', worker.url).href,
      previous: null,
      results: [{ id: 1, title: 'Dune' }, { id: 2, title: 'Emma' }],
    })
    const next = (first.body as { next: string }).next
    const second = await call(new URL(next).pathname + new URL(next).search, { headers: BOB })
    expect(second.body).toEqual({
      count: 3,
      next: null,
      previous: new URL('/books/', worker.url).href,
      results: [{ id: 3, title: 'Kim' }],
    })
    const beyond = await call('/books/?page=9', { headers: BOB })
    expect(beyond.status).toBe(404)
    expect(beyond.body).toEqual({ detail: 'Invalid page.' })
  })

  it('answers an error thrown by a handler in DRF shape', async () => {
    expect((await call('/books/3/', { headers: BOB })).body).toEqual({ id: 3, title: 'Kim' })
    const missing = await call('/books/7/', { headers: BOB })
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toBe('application/json')
    expect(missing.body).toEqual({ detail: 'Not found.' })
  })

  it('refuses a non-staff user 403 and validates a staff user’s JSON and form bodies', async () => {
    const json = { ...ADA, 'Content-Type': 'application/json' }
    const refused = await call('/books/', { method: 'POST', headers: { ...BOB, 'Content-Type': 'application/json' }, body: '{"title":"Ulysses"}' })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ detail: 'You do not have permission to perform this action.' })

    const empty = await call('/books/', { method: 'POST', headers: json, body: '{}' })
    expect(empty.status).toBe(400)
    expect(empty.body).toEqual({ title: ['This field is required.'] })

    const malformed = await call('/books/', { method: 'POST', headers: json, body: '{"title":' })
    expect(malformed.status).toBe(400)
    expect(malformed.body).toEqual({ detail: 'JSON parse error - Expecting value: line 1 column 10 (char 9)' })

    const created = await call('/books/', { method: 'POST', headers: json, body: '{"title":"  Ulysses "}' })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({ id: 4, title: 'Ulysses' })

    const form = await call('/books/', {
      method: 'POST',
      headers: { ...ADA, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'title=Caf%C3%A9+Society',
    })
    expect(form.status).toBe(201)
    expect(form.body).toEqual({ id: 4, title: 'Café Society' })
  })

  it('throttles each user on their own budget: 429 with Retry-After past it', async () => {
    for (let i = 0; i < 3; i++) {
      const allowed = await call('/search/?q=em', { headers: BOB })
      expect(allowed.status).toBe(200)
      expect(allowed.body).toEqual([{ id: 2, title: 'Emma' }])
    }
    const throttled = await call('/search/?q=em', { headers: BOB })
    expect(throttled.status).toBe(429)
    const retryAfter = Number(throttled.headers.get('retry-after'))
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true)
    expect(throttled.body).toEqual({ detail: `Request was throttled. Expected available in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.` })
    // Another user's budget is untouched.
    expect((await call('/search/?q=dune', { headers: ADA })).body).toEqual([{ id: 1, title: 'Dune' }])
  })

  it('throttles anonymous clients by the address Cloudflare gives in CF-Connecting-IP', async () => {
    // Cloudflare's edge sets the header; Miniflare passes a client's own through, as that edge would its own value.
    const first = { 'CF-Connecting-IP': '203.0.113.5' }
    for (let i = 0; i < 3; i++) expect((await call('/search/?q=kim', { headers: first })).status).toBe(200)
    const throttled = await call('/search/?q=kim', { headers: first })
    expect(throttled.status).toBe(429)
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // Another address (IPv6 here) has its own budget, and so has a user from the first address.
    const other = await call('/search/?q=kim', { headers: { 'CF-Connecting-IP': '2001:db8::7' } })
    expect(other.status).toBe(200)
    expect(other.body).toEqual([{ id: 3, title: 'Kim' }])
    expect((await call('/search/?q=kim', { headers: { ...first, ...ADA } })).status).toBe(200)
  })
})
