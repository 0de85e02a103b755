/**
 * DRF's URL-conf rules as one preset per adapter (`drfRouting`, issue 31 / 34 item 1), in the
 * shape of a user's app: the framework's app made the way its docs say, the preset applied,
 * views mounted with `mountRoutes` (under a prefix on one server of each) next to a route of the
 * app's own, served over a real socket. Each adapter must answer as a DRF URL conf does: an
 * unknown path (or one the framework cannot decode) is `404 {"detail":"Not found."}`, the path
 * is routed percent-decoded (`%2F` is a `/`), and the trailing slash and the case are significant.
 */
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApi, jsonResponse, route, type Route } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'
import { FOUR, rawRequest, type Adapter, type RawAnswer } from './four-servers.js'

const api = createApi({ authentication: [], allowedHosts: ['localhost'] })
const whoami = api.view({ name: 'WhoAmI', handlers: { GET: () => jsonResponse(200, { view: 'whoami' }) } })
const book = api.view({ name: 'Book', handlers: { GET: (ctx) => jsonResponse(200, { id: ctx.params['id'] ?? null }) } })
const ROUTES: readonly Route[] = [route('/api/whoami/', whoami), route('/api/books/:id/', book)]
const OWN = { own: true }

/** One server per adapter, built as a user would build it with the preset; `prefix` mounts the views under a path. */
async function serve(adapter: Adapter, prefix: string | undefined): Promise<{ port: number; close(): Promise<void> }> {
  const mount = prefix === undefined ? {} : { prefix }
  let listener: RequestListener
  if (adapter === 'fastify') {
    const app: FastifyInstance = Fastify({ ...fa.drfRouting() })
    app.get('/own/', async () => OWN)
    await fa.mountRoutes(app, ROUTES, mount)
    await app.listen({ port: 0, host: '127.0.0.1' })
    return { port: (app.server.address() as AddressInfo).port, close: () => app.close() }
  }
  if (adapter === 'express') {
    const app = ex.drfRouting(express())
    app.get('/own/', (_req, res) => void res.json(OWN))
    ex.mountRoutes(app, ROUTES, mount)
    app.use(ex.notFound)
    app.use(ex.errorHandler(api))
    listener = app
  } else if (adapter === 'hono') {
    const app = ho.drfRouting(new Hono())
    app.get('/own/', (c) => c.json(OWN))
    ho.mountRoutes(app, ROUTES, mount)
    listener = ho.withoutBodilessContentType(getRequestListener(app.fetch, { errorHandler: ho.requestErrorHandler }))
  } else {
    const views = no.router(ROUTES, mount)
    listener = (req, res) => {
      if (req.url === '/own/') return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': JSON.stringify(OWN).length }).end(JSON.stringify(OWN))
      void views(req, res)
    }
  }
  const server: Server = createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

const servers = new Map<string, { port: number; close(): Promise<void> }>()

beforeAll(async () => {
  for (const adapter of FOUR) {
    servers.set(adapter, await serve(adapter, undefined))
    servers.set(`${adapter} /v1`, await serve(adapter, '/v1'))
  }
})

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.close()))
})

async function get(name: string, target: string): Promise<RawAnswer> {
  const answer = await rawRequest(servers.get(name)?.port as number, 'GET', target, { Host: 'localhost' })
  if (answer === null) throw new Error(`${name}: no answer to ${target}`)
  // The raw client reads bytes as Latin-1.
  return { ...answer, body: Buffer.from(answer.body, 'latin1').toString('utf8') }
}

const NOT_FOUND = { status: 404, body: '{"detail":"Not found."}' }

describe.each(FOUR)('drfRouting on %s', (adapter) => {
  it.each([
    ['an unknown path', '/nope/'],
    ['a view path without its trailing slash', '/api/whoami'],
    ['a view path in another case', '/API/WHOAMI/'],
    ['a path with a malformed escape', '/api/%zz/'],
    ['an own route without its trailing slash', '/own'],
  ])('answers %s with DRF 404', async (_what, target) => {
    const answer = await get(adapter, target)
    expect({ status: answer.status, body: answer.body }).toEqual(NOT_FOUND)
    expect(answer.headers).toContain('content-type: application/json')
  })

  it.each([
    ['an escaped letter', '/api/who%61mi/'],
    ['an escaped slash', '/api%2Fwhoami/'],
  ])('routes a path with %s percent-decoded', async (_what, target) => {
    const answer = await get(adapter, target)
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: '{"view":"whoami"}' })
  })

  it('gives a view its parameter decoded', async () => {
    const answer = await get(adapter, '/api/books/caf%C3%A9/')
    expect(JSON.parse(answer.body)).toEqual({ id: 'café' })
  })

  it('leaves the app its own routes', async () => {
    expect(JSON.parse((await get(adapter, '/own/')).body)).toEqual(OWN)
  })

  it('mounts the views under a prefix, DRF 404 below it', async () => {
    const name = `${adapter} /v1`
    expect(JSON.parse((await get(name, '/v1/api/whoami/')).body)).toEqual({ view: 'whoami' })
    expect(JSON.parse((await get(name, '/v1/api/who%61mi/')).body)).toEqual({ view: 'whoami' })
    const missing = await get(name, '/v1/nope/')
    expect({ status: missing.status, body: missing.body }).toEqual(NOT_FOUND)
    const bare = await get(name, '/api/whoami/')
    expect(bare.status).toBe(404)
  })
})
