/**
 * Issue 36 item 4: one rule for the request URL on every adapter — the request target's path
 * is appended to the origin of the `Host` header, never resolved as a URL. A view mounted on a
 * wildcard route echoes the URL it was given (what links, redirects and the CSRF Origin check
 * are built from): `//evil.example/x` stays a path and an absolute-form target
 * (`GET http://evil.example/x`) does not override `Host`, byte for byte on all four.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApi, jsonResponse, type ApiView } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'
import { FOUR, rawRequest, startFour, type FourServers, type RawAnswer } from './four-servers.js'

const api = createApi({ authentication: [], allowedHosts: ['good.example'] })
const echo: ApiView = api.view({ name: 'Echo', handlers: { GET: async (ctx) => jsonResponse(200, { url: ctx.request.url.href }) } })

let servers: FourServers

beforeAll(async () => {
  servers = await startFour({
    async fastify(app) {
      app.all('/*', fa.viewHandler(echo))
    },
    express(app) {
      app.all('/*splat', ex.viewHandler(echo))
    },
    hono(app) {
      app.all('/*', ho.viewHandler(echo))
    },
    node: () => no.viewHandler(echo),
  })
})

afterAll(async () => {
  await servers.close()
})

async function onAll(target: string): Promise<RawAnswer> {
  const answers = new Map<string, RawAnswer | null>()
  for (const adapter of FOUR) answers.set(adapter, await rawRequest(servers.ports.get(adapter) as number, 'GET', target, { Host: 'good.example' }))
  const node = answers.get('node')
  for (const [adapter, answer] of answers) expect({ adapter, answer }).toEqual({ adapter, answer: node })
  if (node === null || node === undefined) throw new Error('no answer')
  return node
}

describe('the request URL on fastify, express, hono and node:http', () => {
  it('keeps a target starting with // as a path on the Host', async () => {
    const answer = await onAll('//evil.example/x?q=1')
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ url: 'http://good.example//evil.example/x?q=1' })
  })

  it('takes only the path and query of an absolute-form target', async () => {
    const answer = await onAll('http://evil.example/x/?q=1')
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ url: 'http://good.example/x/?q=1' })
  })

  it('answers an origin-form target as before', async () => {
    expect(JSON.parse((await onAll('/a/b/?c=d')).body)).toEqual({ url: 'http://good.example/a/b/?c=d' })
  })
})
