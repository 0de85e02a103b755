import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { jsonResponse } from '../../core/api-response.js'
import { createApi } from '../../core/api.js'
import type { AuthenticationScheme } from '../../core/authentication-scheme.js'
import { AuthenticationFailed, NotFound, ValidationError } from '../../core/errors.js'
import { route } from '../../core/route.js'
import type { User } from '../../core/user.js'
import { ArrayPageSource } from '../../pagination/array-page-source.js'
import { paginatedList } from '../../pagination/list-handler.js'
import { PageNumberPagination } from '../../pagination/page-number-pagination.js'
import { IsAuthenticated } from '../../permissions/is-authenticated.js'
import { IsAdminUser } from '../../permissions/is-admin-user.js'
import { AnonRateThrottle } from '../../throttling/anon-rate-throttle.js'
import { MemoryThrottleStore } from '../../throttling/memory-throttle-store.js'
import { mountRoutes, policies, requestContext, sendApiResponse, errorHandler, type GatehouseEnv } from './index.js'

const alice: User = { id: 1, username: 'alice', isActive: true, isStaff: false, isAuthenticated: true }

/** `Authorization: Token good` is alice; no header is anonymous; anything else fails. */
const scheme: AuthenticationScheme = {
  name: 'Token',
  async authenticate(req) {
    const header = req.headers.get('authorization')
    if (header === null) return null
    if (header === 'Token good') return { user: alice, auth: 'good' }
    throw new AuthenticationFailed('Invalid token.')
  },
  authenticateHeader: () => 'Token',
}

const books = [{ id: 1, title: 'Dune' }, { id: 2, title: 'Emma' }, { id: 3, title: 'Ulysses' }]

function middlewareApp(): Hono<GatehouseEnv> {
  const api = createApi({ authentication: [scheme], permissions: [new IsAuthenticated()] })
  const app = new Hono<GatehouseEnv>()
  const guarded = policies(api, { pagination: new PageNumberPagination({ pageSize: 2 }) })
  app.get('/books/', guarded, async (c) =>
    sendApiResponse(c, await paginatedList(requestContext(c), new PageNumberPagination({ pageSize: 2 }), new ArrayPageSource(books), (b) => b)),
  )
  app.get('/books/:id', guarded, (c) => {
    const book = books.find((b) => String(b.id) === c.req.param('id'))
    if (book === undefined) throw new NotFound()
    return c.json({ ...book, reader: c.get('user').username, auth: c.get('auth') })
  })
  app.post('/books/', guarded, async (c) => {
    const body: unknown = await c.req.json()
    if (typeof body !== 'object' || body === null || !('title' in body)) throw new ValidationError({ title: ['This field is required.'] })
    return c.json(body, 201)
  })
  app.get('/admin/', policies(api, { permissions: [new IsAdminUser()] }), (c) => c.text('secret'))
  app.get('/boom/', guarded, () => {
    throw new Error('kaput')
  })
  app.get('/open/', (c) => c.text('no gatehouse here'))
  app.onError(errorHandler(api))
  return app
}

const token = { Authorization: 'Token good' }

describe('hono adapter, middleware style', () => {
  it('answers 401 with WWW-Authenticate when unauthenticated, and lets the app route answer when authenticated', async () => {
    const app = middlewareApp()
    const anonymous = await app.request('/books/2')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('content-type')).toBe('application/json')
    expect(anonymous.headers.get('www-authenticate')).toBe('Token')
    expect(await anonymous.json()).toEqual({ detail: 'Authentication credentials were not provided.' })

    const ok = await app.request('/books/2', { headers: token })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ id: 2, title: 'Emma', reader: 'alice', auth: 'good' })

    const bad = await app.request('/books/2', { headers: { Authorization: 'Token nope' } })
    expect(bad.status).toBe(401)
    expect(await bad.json()).toEqual({ detail: 'Invalid token.' })
  })

  it('answers 403 (not 401) for an authenticated user without permission', async () => {
    const response = await middlewareApp().request('/admin/', { headers: token })
    expect(response.status).toBe(403)
    expect(response.headers.get('www-authenticate')).toBeNull()
    expect(await response.json()).toEqual({ detail: 'You do not have permission to perform this action.' })
  })

  it('renders ApiErrors thrown by the app handler in DRF shape', async () => {
    const app = middlewareApp()
    const missing = await app.request('/books/99', { headers: token })
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toBe('application/json')
    expect(await missing.json()).toEqual({ detail: 'Not found.' })
    const invalid = await app.request('/books/', { method: 'POST', headers: { ...token, 'Content-Type': 'application/json' }, body: '{}' })
    expect(invalid.status).toBe(400)
    expect(await invalid.json()).toEqual({ title: ['This field is required.'] })
  })

  it('lets the handler read a body the guard may have read, and refuses a body over the limit with 413', async () => {
    const app = middlewareApp()
    const created = await app.request('/books/', { method: 'POST', headers: { ...token, 'Content-Type': 'application/json' }, body: '{"title":"Kim"}' })
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({ title: 'Kim' })

    // A scheme that reads the body makes the adapter read it first (with its limit).
    const reading: AuthenticationScheme = {
      async authenticate(req) {
        const data = await req.body()
        return data !== null && typeof data === 'object' && 'user' in data ? { user: alice, auth: null } : null
      },
    }
    const api = createApi({ authentication: [reading], permissions: [new IsAuthenticated()] })
    const small = new Hono<GatehouseEnv>()
    small.post('/p/', policies(api, { bodyLimit: 20 }), async (c) => c.json({ echoed: await c.req.json<unknown>() }))
    const fine = await small.request('/p/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"user":1}' })
    expect(fine.status).toBe(200)
    expect(await fine.json()).toEqual({ echoed: { user: 1 } })
    const big = JSON.stringify({ user: 'x'.repeat(100) })
    const declared = await small.request('/p/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: big })
    expect(declared.status).toBe(413)
    expect(await declared.json()).toEqual({ detail: 'Request body is too large.' })
    // No Content-Length (a stream): the limit stops the read.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big))
        controller.close()
      },
    })
    const chunked = await small.request(new Request('http://localhost/p/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit))
    expect(chunked.status).toBe(413)
  })

  it('errorHandler answers other handler errors as a logged DRF 500, and leaves unguarded routes alone', async () => {
    const app = middlewareApp()
    const boom = await app.request('/boom/', { headers: token })
    expect(boom.status).toBe(500)
    expect(await boom.json()).toEqual({ detail: 'A server error occurred.' })
    expect((await app.request('/open/')).status).toBe(200)

    const logged: unknown[] = []
    const unguarded = new Hono()
    unguarded.get('/x/:id', () => {
      throw new NotFound()
    })
    unguarded.get('/y/', () => {
      throw new Error('secret')
    })
    unguarded.onError(errorHandler(createApi({ logError: (error) => logged.push(error) })))
    const missing = await unguarded.request('/x/1')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ detail: 'Not found.' })
    const failed = await unguarded.request('/y/')
    expect(await failed.json()).toEqual({ detail: 'A server error occurred.' })
    expect(logged).toHaveLength(1)
  })

  it('paginates with absolute next links from the request URL', async () => {
    const response = await middlewareApp().request('http://api.example:8080/books/?page=1', { headers: token })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      count: 3,
      next: 'http://api.example:8080/books/?page=2',
      previous: null,
      results: [books[0], books[1]],
    })
  })

  it('answers throttled requests with 429 and Retry-After', async () => {
    const api = createApi({ throttles: [new AnonRateThrottle({ rate: '1/min', store: new MemoryThrottleStore(), now: () => 1_000_000 })] })
    const app = new Hono<GatehouseEnv>()
    app.get('/t/', policies(api), (c) => c.text('ok'))
    expect((await app.request('/t/')).status).toBe(200)
    const throttled = await app.request('/t/')
    expect(throttled.status).toBe(429)
    expect(throttled.headers.get('retry-after')).toBe('60')
    expect(await throttled.json()).toEqual({ detail: 'Request was throttled. Expected available in 60 seconds.' })
  })
})

describe('hono adapter, Vary', () => {
  it('adds the Vary of the consulted schemes to the app answer and to a refusal', async () => {
    const cookieScheme: AuthenticationScheme = {
      vary: ['Cookie'],
      authenticate: async (req) => (req.cookie('s') === 'ok' ? { user: alice, auth: null } : null),
    }
    const api = createApi({ authentication: [cookieScheme], permissions: [new IsAuthenticated()] })
    const app = new Hono<GatehouseEnv>()
    app.get('/v/', policies(api), (c) => {
      c.header('Vary', 'Accept')
      return c.text('ok')
    })
    const ok = await app.request('/v/', { headers: { Cookie: 's=ok' } })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('vary')).toBe('Accept, Cookie')
    const refused = await app.request('/v/')
    expect(refused.status).toBe(403)
    expect(refused.headers.get('vary')).toBe('Cookie')
  })
})

describe('hono adapter, views style', () => {
  function viewsApp(): Hono {
    const api = createApi()
    const app = new Hono()
    mountRoutes(app, [
      route('/items/:id/', api.view({ name: 'Item', handlers: { GET: async (ctx) => jsonResponse(200, { id: ctx.params['id'] ?? null }) } })),
      route(
        '/cookies/',
        api.view({
          name: 'Cookies',
          handlers: { POST: async (ctx) => jsonResponse(200, { got: await ctx.request.body() }, [['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']]) },
        }),
      ),
    ])
    return app
  }

  it('passes route params, answers 405 itself, keeps the trailing slash significant', async () => {
    const app = viewsApp()
    const ok = await app.request('/items/a%20b/')
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toBe('application/json')
    expect(await ok.json()).toEqual({ id: 'a b' })
    const wrong = await app.request('/items/7/', { method: 'DELETE' })
    expect(wrong.status).toBe(405)
    expect(await wrong.json()).toEqual({ detail: 'Method "DELETE" not allowed.' })
    expect((await app.request('/items/7')).status).toBe(404)
    const head = await app.request('/items/7/', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  it('sends each Set-Cookie separately and parses the body, over a real socket via @hono/node-server', async () => {
    const server = serve({ fetch: viewsApp().fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise<void>((resolve) => server.once('listening', () => resolve()))
    try {
      const { port } = server.address() as AddressInfo
      const response = await fetch(`http://127.0.0.1:${port}/cookies/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"n":1}' })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('application/json')
      expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
      expect(await response.json()).toEqual({ got: { n: 1 } })
    } finally {
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    }
  })

  it('sees the peer address from @hono/node-server', async () => {
    const api = createApi()
    const app = new Hono()
    mountRoutes(app, [route('/ip/', api.view({ name: 'Ip', handlers: { GET: async (ctx) => jsonResponse(200, { ip: ctx.request.remoteAddress }) } }))])
    expect(await (await app.request('/ip/')).json()).toEqual({ ip: null })
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise<void>((resolve) => server.once('listening', () => resolve()))
    try {
      const { port } = server.address() as AddressInfo
      expect(await (await fetch(`http://127.0.0.1:${port}/ip/`)).json()).toEqual({ ip: '127.0.0.1' })
    } finally {
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    }
  })
})
