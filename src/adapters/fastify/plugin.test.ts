import Fastify, { type FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { jsonResponse } from '../../core/api-response.js'
import { createApi } from '../../core/api.js'
import type { AuthenticationScheme } from '../../core/authentication-scheme.js'
import { AuthenticationFailed, PermissionDenied } from '../../core/errors.js'
import { IsAuthenticated } from '../../permissions/is-authenticated.js'
import { route } from '../../core/route.js'
import { AnonRateThrottle } from '../../throttling/anon-rate-throttle.js'
import { MemoryThrottleStore } from '../../throttling/memory-throttle-store.js'
import { gatehouse, mountRoutes, sendApiResponse } from './index.js'
import { paginatedList } from '../../pagination/list-handler.js'
import { PageNumberPagination } from '../../pagination/page-number-pagination.js'
import { ArrayPageSource } from '../../pagination/array-page-source.js'

const articles = Array.from({ length: 25 }, (_, i) => ({ id: i + 1 }))

const apiKey: AuthenticationScheme<null> = {
  name: 'ApiKeyAuthentication',
  authenticateHeader: () => 'ApiKey',
  async authenticate(req) {
    const key = req.headers.get('x-api-key')
    if (key === null) return null
    if (key !== 'good') throw new AuthenticationFailed('Invalid API key.')
    return { user: { id: 1, username: 'robot', isActive: true, isStaff: false, isAuthenticated: true }, auth: null }
  },
}

class ConflictError extends Error {
  readonly statusCode = 409
}

/** An app with its own schema route, text/plain parser and error handler, plus gatehouse. */
async function buildApp(): Promise<FastifyInstance> {
  const app = Fastify()
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_req, body, done) => done(null, `text:${String(body)}`))
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    if (error instanceof ConflictError) return reply.code(409).send({ error: error.message })
    return reply.code(error.statusCode ?? 500).send({ error: 'app' })
  })
  app.post('/schema', { schema: { body: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } } } }, async (request) => ({ got: request.body }))
  app.post('/text', async (request) => ({ got: request.body }))
  app.get('/boom', async () => {
    throw new ConflictError('Book 5 is checked out')
  })

  const api = createApi({ authentication: [apiKey] })
  const store = new MemoryThrottleStore()
  await app.register(gatehouse, {
    api,
    plugin: async (books) => {
      books.get('/books/:id', { config: { gatehouse: { permissions: [new IsAuthenticated()] } } }, async (request) => ({
        id: (request.params as { id: string }).id,
        user: request.user?.username,
      }))
      books.post('/books', { config: { gatehouse: { permissions: [new IsAuthenticated()] } }, schema: { body: { type: 'object', required: ['title'] } } }, async (request) => ({ got: request.body }))
      books.get('/staff', { config: { gatehouse: { permissions: [{ hasPermission: () => false, message: 'Staff only.' }] } } }, async () => ({}))
      books.get('/limited', { config: { gatehouse: { throttles: [new AnonRateThrottle({ store, rate: '1/min' })] } } }, async () => ({ ok: true }))
      books.get('/checkout/:id', { config: { gatehouse: {} } }, async (request) => {
        const id = (request.params as { id: string }).id
        if (id === '5') throw new ConflictError('Book 5 is checked out')
        throw new PermissionDenied('Not your shelf.')
      })
      books.get('/articles/', { config: { gatehouse: { pageSize: 10 } } }, async (request, reply) => {
        const ctx = request.gatehouse
        if (ctx === null || ctx === undefined) throw new Error('not guarded')
        return sendApiResponse(reply, await paginatedList(ctx, new PageNumberPagination(), new ArrayPageSource(articles), (row) => row))
      })
      books.get('/open', async (request) => ({ user: request.user }))
    },
  })
  await app.ready()
  return app
}

describe('gatehouse plugin (middleware style)', () => {
  it('leaves the app\'s schema route, text/plain parser and error handler working', async () => {
    const app = await buildApp()
    const json = { 'content-type': 'application/json' }
    const valid = await app.inject({ method: 'POST', url: '/schema', payload: '{"title":"Dune"}', headers: json })
    expect(valid.statusCode).toBe(200)
    expect(valid.json()).toEqual({ got: { title: 'Dune' } })
    const invalid = await app.inject({ method: 'POST', url: '/schema', payload: '{}', headers: json })
    expect(invalid.statusCode).toBe(400)
    const text = await app.inject({ method: 'POST', url: '/text', payload: 'hi', headers: { 'content-type': 'text/plain' } })
    expect(text.json()).toEqual({ got: 'text:hi' })
    const boom = await app.inject({ method: 'GET', url: '/boom' })
    expect(boom.statusCode).toBe(409)
    expect(boom.json()).toEqual({ error: 'Book 5 is checked out' })
    const unknown = await app.inject({ method: 'GET', url: '/nowhere' })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).not.toEqual({ detail: 'Not found.' })
    await app.close()
  })

  it('answers 401 with WWW-Authenticate, 403, and 429 with Retry-After in DRF shape', async () => {
    const app = await buildApp()
    const anon = await app.inject({ method: 'GET', url: '/books/7' })
    expect(anon.statusCode).toBe(401)
    expect(anon.json()).toEqual({ detail: 'Authentication credentials were not provided.' })
    expect(anon.headers['www-authenticate']).toBe('ApiKey')
    const bad = await app.inject({ method: 'GET', url: '/books/7', headers: { 'x-api-key': 'bad' } })
    expect(bad.statusCode).toBe(401)
    expect(bad.json()).toEqual({ detail: 'Invalid API key.' })
    const staff = await app.inject({ method: 'GET', url: '/staff', headers: { 'x-api-key': 'good' } })
    expect(staff.statusCode).toBe(403)
    expect(staff.json()).toEqual({ detail: 'Staff only.' })
    expect((await app.inject({ method: 'GET', url: '/limited' })).statusCode).toBe(200)
    const limited = await app.inject({ method: 'GET', url: '/limited' })
    expect(limited.statusCode).toBe(429)
    expect(limited.json()).toMatchObject({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/) })
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    await app.close()
  })

  it('gives the detail route its param and the user; the body Fastify parsed', async () => {
    const app = await buildApp()
    const ok = await app.inject({ method: 'GET', url: '/books/7', headers: { 'x-api-key': 'good' } })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toEqual({ id: '7', user: 'robot' })
    const created = await app.inject({ method: 'POST', url: '/books', payload: '{"title":"Dune"}', headers: { 'x-api-key': 'good', 'content-type': 'application/json' } })
    expect(created.json()).toEqual({ got: { title: 'Dune' } })
    const open = await app.inject({ method: 'GET', url: '/open' })
    expect(open.json()).toEqual({ user: null })
    await app.close()
  })

  it('sends a paginated list with absolute links from an app handler', async () => {
    const app = await buildApp()
    const res = await app.inject({ method: 'GET', url: '/articles/?page=2', headers: { host: 'api.example.com' } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.json()).toEqual({
      count: 25,
      next: 'http://api.example.com/articles/?page=3',
      previous: 'http://api.example.com/articles/',
      results: articles.slice(10, 20),
    })
    await app.close()
  })

  it('answers errors of its routes in DRF shape: ApiErrors rendered, any other error a DRF 500', async () => {
    const app = await buildApp()
    const denied = await app.inject({ method: 'GET', url: '/checkout/4' })
    expect(denied.statusCode).toBe(403)
    expect(denied.json()).toEqual({ detail: 'Not your shelf.' })
    const conflict = await app.inject({ method: 'GET', url: '/checkout/5' })
    expect(conflict.statusCode).toBe(500)
    expect(conflict.json()).toEqual({ detail: 'A server error occurred.' })
    await app.close()
  })

  it('builds guards at registration: a misspelt option stops start-up', async () => {
    const app = Fastify()
    await expect(
      app.register(gatehouse, {
        api: createApi(),
        plugin: async (scope) => {
          scope.get('/x', { config: { gatehouse: { permision: [] } as never } }, async () => ({}))
        },
      }),
    ).rejects.toThrow(/unknown setting "permision"/)
  })

  it('works over a real socket', async () => {
    const app = await buildApp()
    const address = await app.listen({ port: 0, host: '127.0.0.1' })
    const res = await fetch(`${address}/books/9`, { headers: { 'x-api-key': 'good' } })
    expect(await res.json()).toEqual({ id: '9', user: 'robot' })
    const anon = await fetch(`${address}/books/9`)
    expect(anon.status).toBe(401)
    await app.close()
  })
})

describe('mountRoutes (DRF views)', () => {
  async function viewsApp(): Promise<FastifyInstance> {
    const app = Fastify()
    app.post('/legacy', async (request) => ({ got: request.body }))
    const api = createApi()
    const detail = api.view({ name: 'Book', handlers: { GET: async (ctx) => jsonResponse(200, { id: ctx.request.params.id }) } })
    const echo = api.view({ name: 'Echo', handlers: { POST: async (ctx) => jsonResponse(200, { got: await ctx.request.body() }) } })
    await mountRoutes(app, [route('/books/:id/', detail), route('/echo/', echo)], { prefix: '/api' })
    await app.ready()
    return app
  }

  it('passes path params, answers 405 and DRF 404 only inside its prefix', async () => {
    const app = await viewsApp()
    const book = await app.inject({ method: 'GET', url: '/api/books/12/' })
    expect(book.json()).toEqual({ id: '12' })
    expect(book.headers['content-type']).toBe('application/json')
    const put = await app.inject({ method: 'PUT', url: '/api/books/12/' })
    expect(put.statusCode).toBe(405)
    const inside = await app.inject({ method: 'GET', url: '/api/books/12' })
    expect(inside.statusCode).toBe(404)
    expect(inside.json()).toEqual({ detail: 'Not found.' })
    const outside = await app.inject({ method: 'GET', url: '/elsewhere' })
    expect(outside.statusCode).toBe(404)
    expect(outside.json()).not.toEqual({ detail: 'Not found.' })
    await app.close()
  })

  it('parses bodies with DRF rules inside, leaves the app\'s JSON parser outside', async () => {
    const app = await viewsApp()
    const json = { 'content-type': 'application/json' }
    expect((await app.inject({ method: 'POST', url: '/legacy', payload: '{"a":1}', headers: json })).json()).toEqual({ got: { a: 1 } })
    expect((await app.inject({ method: 'POST', url: '/api/echo/', payload: '{"a":1}', headers: json })).json()).toEqual({ got: { a: 1 } })
    const malformed = await app.inject({ method: 'POST', url: '/api/echo/', payload: '{', headers: json })
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json()).toEqual({ detail: 'JSON parse error - Expecting property name enclosed in double quotes: line 1 column 2 (char 1)' })
    const unsupported = await app.inject({ method: 'POST', url: '/api/echo/', payload: 'x', headers: { 'content-type': 'text/csv' } })
    expect(unsupported.statusCode).toBe(415)
    await app.close()
  })

  it('answers an oversized body with DRF-shaped 413 from the view, when the view reads it', async () => {
    const app = Fastify({ bodyLimit: 10 })
    const api = createApi()
    const echo = api.view({ name: 'Echo', handlers: { POST: async (ctx) => jsonResponse(200, { got: await ctx.request.body() }) } })
    const ignores = api.view({ name: 'Ignores', handlers: { POST: async () => jsonResponse(201, {}) } })
    await mountRoutes(app, [route('/echo/', echo), route('/ignores/', ignores)], { prefix: '/api' })
    const payload = '{"a":"0123456789"}'
    const headers = { 'content-type': 'application/json' }
    const res = await app.inject({ method: 'POST', url: '/api/echo/', payload, headers })
    expect(res.statusCode).toBe(413)
    expect(res.json()).toEqual({ detail: 'Request body is too large.' })
    // The view answered it, as node:http, Express and Hono views do: with its Allow header.
    expect(res.headers['allow']).toBe('POST, OPTIONS')
    // A view that never reads the body is not refused for it (Django raises only on reading).
    expect((await app.inject({ method: 'POST', url: '/api/ignores/', payload, headers })).statusCode).toBe(201)
    await app.close()
  })
})
