/**
 * Issue 41 item 3: `express.json()` on the app and `errorHandler(api)` on a router mounted under
 * `/api` (the usual layout). body-parser's error never reaches a router (Express passes errors
 * to error middleware only), so Express's final handler answered a malformed body with an HTML
 * stack trace. The app's first guarded request now makes that layout answer it in DRF's shape,
 * with one warning; the README's layout (`errorHandler(api)` on the app) answers it from the
 * first request. Express 4 and 5, real sockets.
 */
import { createRequire } from 'node:module'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createApi } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'

// `express4` is the npm alias of Express 4; it ships no types, so it is typed as Express 5's factory.
const express4 = createRequire(import.meta.url)('express4') as typeof express

const api = createApi({ authentication: [] })
const MALFORMED = { status: 400, type: 'application/json', body: '{"detail":"JSON parse error - Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"}' }
const servers: Server[] = []

function serve(make: typeof express, errorHandlerOnApp: boolean): Promise<number> {
  const app = make()
  app.use(make.json())
  const router = make.Router({ strict: true })
  router.post('/books/', ex.policies(api), (req, res) => void res.json({ received: req.body as unknown }))
  if (!errorHandlerOnApp) router.use(ex.errorHandler(api))
  app.use('/api', router)
  if (errorHandlerOnApp) app.use(ex.errorHandler(api))
  const server = createServer(app)
  servers.push(server)
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
}

function post(port: number, body: string): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/books/', headers: { 'Content-Type': 'application/json' }, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const warnings: Error[] = []
const onWarning = (warning: Error): void => void warnings.push(warning)
beforeEach(() => {
  warnings.length = 0
  process.on('warning', onWarning)
})
afterEach(() => void process.off('warning', onWarning))
afterAll(() => {
  for (const server of servers) {
    server.close()
    server.closeAllConnections()
  }
})

describe.each([
  ['Express 5', express],
  ['Express 4', express4],
])('%s', (_name, make) => {
  it("express.json() on the app, errorHandler on the /api router: a malformed body is DRF's 400 once a guarded request came, with one warning", async () => {
    const port = await serve(make, false)
    expect((await post(port, '{"title":"Dune"}')).status).toBe(200)
    for (let i = 0; i < 2; i++) {
      const answer = await post(port, '{')
      expect({ status: answer.status, type: answer.type, body: answer.body }).toEqual(MALFORMED)
    }
    // Emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings.map((w) => (w as Error & { code?: string }).code)).toEqual(['GATEHOUSE_EXPRESS_PARSER_LAYOUT'])
  })

  it("the README's layout, errorHandler(api) on the app: DRF's 400 from the first request, no warning", async () => {
    const port = await serve(make, true)
    const answer = await post(port, '{')
    expect({ status: answer.status, type: answer.type, body: answer.body }).toEqual(MALFORMED)
    expect((await post(port, '{"title":"Dune"}')).status).toBe(200)
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings).toEqual([])
  })
})

