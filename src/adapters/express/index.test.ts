import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import express, { type Express } from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import { jsonResponse } from '../../core/api-response.js'
import { createApi } from '../../core/api.js'
import type { AuthenticationScheme } from '../../core/authentication-scheme.js'
import { AuthenticationFailed, NotFound } from '../../core/errors.js'
import { route } from '../../core/route.js'
import { ArrayPageSource } from '../../pagination/array-page-source.js'
import { listHandler, paginatedList } from '../../pagination/list-handler.js'
import { PageNumberPagination } from '../../pagination/page-number-pagination.js'
import { IsAuthenticated } from '../../permissions/is-authenticated.js'
import { AnonRateThrottle } from '../../throttling/anon-rate-throttle.js'
import { MemoryThrottleStore } from '../../throttling/memory-throttle-store.js'
import { errorHandler, mountRoutes, policies, requestContext, sendApiResponse } from './index.js'

// `express4` is the npm alias of Express 4; it ships no types, so it is typed as Express 5's factory.
const express4 = createRequire(import.meta.url)('express4') as typeof express

/** Bearer `good` authenticates alice; with `header`, denials of anonymous requests are 401. */
function scheme(header: boolean): AuthenticationScheme {
  return {
    name: 'Test',
    async authenticate(req) {
      const value = req.headers.get('authorization')
      if (value === null) return null
      if (value !== 'Bearer good') throw new AuthenticationFailed()
      return { user: { id: 1, username: 'alice', isAuthenticated: true, isActive: true, isStaff: false, isSuperuser: false } as never, auth: 'tok' }
    },
    ...(header ? { authenticateHeader: () => 'Bearer realm="api"' } : {}),
  }
}

const servers: { close(): void }[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

async function listen(app: Express): Promise<string> {
  const server = app.listen(0)
  servers.push(server)
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe.each([
  ['Express 5', express],
  ['Express 4', express4],
])('%s adapter', (_name, factory) => {
  function middlewareApp(withHeader = true): Express {
    const api = createApi({ authentication: [scheme(withHeader)] })
    const app = factory()
    const router = factory.Router()
    // The body parser on the router, so the router's error handler sees its errors.
    router.use(factory.json())
    const routePolicies = api.policies({ name: 'books', permissions: [new IsAuthenticated()] })
    router.get('/books/:id', policies(routePolicies), (req, res) => {
      res.json({ id: req.params['id'], user: req.user?.username ?? null, auth: req.auth })
    })
    router.post('/books/', policies(routePolicies), (req, res) => {
      res.status(201).json({ received: req.body as unknown })
    })
    router.get('/boom/', policies(api.policies({ name: 'boom' })), () => {
      throw new Error('app failure')
    })
    router.use(errorHandler())
    app.use('/api', router)
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ appHandler: error.message })
    })
    return app
  }

  it('puts the user on req for the app handler of a detail route with a parameter', async () => {
    const base = await listen(middlewareApp())
    const response = await fetch(`${base}/api/books/7`, { headers: { authorization: 'Bearer good' } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ id: '7', user: 'alice', auth: 'tok' })
  })

  it('answers 401 with WWW-Authenticate, or 403 when the first scheme has no header', async () => {
    const unauthorized = await fetch(`${await listen(middlewareApp(true))}/api/books/7`)
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer realm="api"')
    expect(await unauthorized.json()).toEqual({ detail: 'Authentication credentials were not provided.' })
    const forbidden = await fetch(`${await listen(middlewareApp(false))}/api/books/7`)
    expect(forbidden.status).toBe(403)
    expect(await forbidden.json()).toEqual({ detail: 'Authentication credentials were not provided.' })
  })

  it('answers a guarded JSON POST after express.json() and renders its malformed JSON as DRF does', async () => {
    const base = await listen(middlewareApp())
    const ok = await fetch(`${base}/api/books/`, { method: 'POST', headers: { authorization: 'Bearer good', 'content-type': 'application/json' }, body: '{"title":"Dune"}' })
    expect(ok.status).toBe(201)
    expect(await ok.json()).toEqual({ received: { title: 'Dune' } })
    const bad = await fetch(`${base}/api/books/`, { method: 'POST', headers: { authorization: 'Bearer good', 'content-type': 'application/json' }, body: '{"title":' })
    expect(bad.status).toBe(400)
    expect(bad.headers.get('content-type')).toBe('application/json')
    expect(await bad.json()).toEqual({ detail: 'JSON parse error - Expecting value: line 1 column 10 (char 9)' })
  })

  it('answers any other handler error as DRF\'s 500, never the error text, and an error after the answer goes on', async () => {
    const response = await fetch(`${await listen(middlewareApp())}/api/boom/`)
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ detail: 'A server error occurred.' })
  })

  it('sends Retry-After when throttled', async () => {
    const api = createApi({ throttles: [new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '1/min' })] })
    const app = factory()
    app.get('/t/', policies(api.policies({ name: 't' })), (_req, res) => {
      res.json({ ok: true })
    })
    const base = await listen(app)
    expect((await fetch(`${base}/t/`)).status).toBe(200)
    const throttled = await fetch(`${base}/t/`)
    expect(throttled.status).toBe(429)
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await throttled.json()) as unknown).toMatchObject({ detail: expect.stringMatching(/^Request was throttled/) as unknown })
  })

  function viewsApp(trustProxy: boolean): Express {
    const api = createApi({ pagination: new PageNumberPagination(), pageSize: 2 })
    const rows = [1, 2, 3, 4, 5].map((id) => ({ id }))
    const app = factory()
    if (trustProxy) app.set('trust proxy', true)
    app.use(factory.json())
    const router = factory.Router({ strict: true })
    mountRoutes(router, [
      route('/books/', api.view({ name: 'books', handlers: { GET: listHandler({ source: () => new ArrayPageSource(rows), serialize: (r) => r }), POST: async (ctx) => jsonResponse(201, { got: await ctx.request.body() }) } })),
      route('/books/:id/', api.view({ name: 'book', handlers: { GET: async (ctx) => jsonResponse(200, { id: ctx.params['id'] }) } })),
    ])
    app.use('/api', router)
    return app
  }

  it('keeps the mount path in next links and honours trust proxy', async () => {
    const base = await listen(viewsApp(false))
    const page = (await (await fetch(`${base}/api/books/`, { headers: { 'x-forwarded-proto': 'https' } })).json()) as { next: string; results: unknown[] }
    expect(page.next).toBe(`${base}/api/books/?page=2`)
    expect(page.results).toEqual([{ id: 1 }, { id: 2 }])
    const proxied = await listen(viewsApp(true))
    const behind = (await (await fetch(`${proxied}/api/books/?page=2`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' } })).json()) as { next: string }
    expect(behind.next).toBe('https://api.example.com/api/books/?page=3')
  })

  it('hands a body express.json() already parsed to the view (no hang) and passes route params', async () => {
    const base = await listen(viewsApp(false))
    const posted = await fetch(`${base}/api/books/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' })
    expect(posted.status).toBe(201)
    expect(await posted.json()).toEqual({ got: { a: [1, 2] } })
    const text = await fetch(`${base}/api/books/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' })
    expect(await text.json()).toEqual({ got: { a: '1' } })
    const detail = await fetch(`${base}/api/books/42/`)
    expect(await detail.json()).toEqual({ id: '42' })
    const wrong = await fetch(`${base}/api/books/42/`, { method: 'DELETE' })
    expect(wrong.status).toBe(405)
  })

  it('answers 400 for a Host that is not a bare host[:port]', async () => {
    const app = factory()
    app.get('/x/', (req, res) => {
      sendApiResponse(res, jsonResponse(200, { ok: true }))
    })
    mountRoutes(app, [route('/y/', createApi().view({ handlers: { GET: async () => jsonResponse(200, {}) } }))])
    const base = await listen(app)
    const { request } = await import('node:http')
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/y/`, { headers: { host: 'a/b?' } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(400)
  })

  it('renders app-level express.json() errors and ApiErrors a handler passes on, with the paginate helper keeping the mount path', async () => {
    const api = createApi({ pagination: new PageNumberPagination(), pageSize: 2 })
    const app = factory()
    app.use(factory.json())
    const router = factory.Router()
    const routePolicies = api.policies({ name: 'list' })
    router.get('/items/', policies(routePolicies), (req, res, next) => {
      const ctx = requestContext(req)
      paginatedList(ctx, ctx.settings.pagination, new ArrayPageSource([{ n: 1 }, { n: 2 }, { n: 3 }]), (row) => row).then((response) => sendApiResponse(res, response), next)
    })
    router.post('/items/', policies(routePolicies), (_req, _res, next) => {
      next(new NotFound())
    })
    app.use('/api', router)
    app.use(errorHandler())
    const base = await listen(app)
    const list = (await (await fetch(`${base}/api/items/`)).json()) as { next: string }
    expect(list.next).toBe(`${base}/api/items/?page=2`)
    const missing = await fetch(`${base}/api/items/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ detail: 'Not found.' })
    const bad = await fetch(`${base}/api/items/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'nope' })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ detail: 'JSON parse error - Expecting value: line 1 column 1 (char 0)' })
  })

  it('reads the stream itself when no parser ran, with its body limit, and re-parses a text parser output', async () => {
    const api = createApi()
    const echo = api.view({ name: 'echo', handlers: { POST: async (ctx) => jsonResponse(200, { got: await ctx.request.body() }) } })
    const app = factory()
    const raw = factory.Router()
    mountRoutes(raw, [route('/echo/', echo)], { bodyLimit: 16 })
    const text = factory.Router()
    text.use(factory.text({ type: '*/*' }))
    mountRoutes(text, [route('/echo/', echo)])
    app.use('/raw', raw)
    app.use('/text', text)
    const base = await listen(app)
    const json = { 'content-type': 'application/json' }
    expect(await (await fetch(`${base}/raw/echo/`, { method: 'POST', headers: json, body: '{"a":1}' })).json()).toEqual({ got: { a: 1 } })
    const big = await fetch(`${base}/raw/echo/`, { method: 'POST', headers: json, body: JSON.stringify({ a: 'x'.repeat(64) }) })
    expect(big.status).toBe(413)
    expect(await big.json()).toEqual({ detail: 'Request body is too large.' })
    expect(await (await fetch(`${base}/text/echo/`, { method: 'POST', headers: json, body: '{"a":2}' })).json()).toEqual({ got: { a: 2 } })
    const malformed = await fetch(`${base}/text/echo/`, { method: 'POST', headers: json, body: '{' })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toEqual({ detail: 'JSON parse error - Expecting property name enclosed in double quotes: line 1 column 2 (char 1)' })
  })
})
