/**
 * The client's address through the Hono adapter on each server: @hono/node-server, Bun.serve
 * and Deno.serve (each hands Hono its connection differently), a `getConnInfo` option, and
 * throttling that tells clients apart by it. The connection objects are the shapes those
 * servers pass; the last test serves over a real socket on whichever runtime runs it.
 */
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { jsonResponse } from '../../core/api-response.js'
import { createApi } from '../../core/api.js'
import { route } from '../../core/route.js'
import { currentRuntime } from '../../core/runtime.js'
import { AnonRateThrottle } from '../../throttling/anon-rate-throttle.js'
import { MemoryThrottleStore } from '../../throttling/memory-throttle-store.js'
import type { ConnInfoReader } from './client-address.js'
import { mountRoutes, policies, type HonoOptions } from './index.js'

/** An app whose `/ip/` view answers the address the adapter read, and a guarded `/p/` route. */
function ipApp(options: HonoOptions = {}): Hono {
  const api = createApi()
  const app = new Hono()
  mountRoutes(app, [route('/ip/', api.view({ name: 'Ip', handlers: { GET: async (ctx) => jsonResponse(200, { ip: ctx.request.remoteAddress }) } }))], options)
  return app
}

async function ipOf(app: Hono, env?: unknown): Promise<unknown> {
  return ((await (await app.request('/ip/', {}, env)).json()) as { ip: unknown }).ip
}

/** The `Server` Bun passes to `fetch`: `requestIP` answers for the very request it was given. */
function bunServer(address: string): { requestIP(request: Request): { address: string; family: string; port: number } | null; asked: Request[] } {
  const asked: Request[] = []
  return {
    asked,
    requestIP: (request) => (asked.push(request), { address, family: address.includes(':') ? 'IPv6' : 'IPv4', port: 50_000 }),
  }
}

describe('client address through the Hono adapter', () => {
  it('reads @hono/node-server’s incoming socket', async () => {
    expect(await ipOf(ipApp(), { incoming: { socket: { remoteAddress: '192.0.2.1' } }, outgoing: {} })).toBe('192.0.2.1')
  })

  it('asks Bun’s server for the request’s address (env is the server, or { server })', async () => {
    const server = bunServer('2001:db8::7')
    expect(await ipOf(ipApp(), server)).toBe('2001:db8::7')
    expect(server.asked).toHaveLength(1)
    expect(server.asked[0]).toBeInstanceOf(Request)
    expect(await ipOf(ipApp(), { server: bunServer('192.0.2.2') })).toBe('192.0.2.2')
    // requestIP answers null for a request it did not accept (e.g. one the app built itself).
    expect(await ipOf(ipApp(), { requestIP: () => null })).toBeNull()
  })

  it('reads Deno.serve’s remoteAddr, and nothing from a Unix socket', async () => {
    expect(await ipOf(ipApp(), { remoteAddr: { transport: 'tcp', hostname: '198.51.100.3', port: 41_000 } })).toBe('198.51.100.3')
    expect(await ipOf(ipApp(), { remoteAddr: { transport: 'unix', path: '/run/app.sock' } })).toBeNull()
  })

  it('is null where the server gives no connection (app.request, edge runtimes)', async () => {
    expect(await ipOf(ipApp())).toBeNull()
    expect(await ipOf(ipApp(), { SOME_BINDING: 'x' })).toBeNull()
  })

  it('takes Hono’s getConnInfo for the runtime, or any reader, as the getConnInfo option', async () => {
    // hono/bun and hono/deno read Bun and Deno globals when loaded: each loads on its own runtime only.
    const runtime = currentRuntime()
    const { getConnInfo } = (await (runtime === 'bun' ? import('hono/bun') : runtime === 'deno' ? import('hono/deno') : import('@hono/node-server/conninfo'))) as { getConnInfo: ConnInfoReader }
    const env = { bun: bunServer('203.0.113.9'), deno: { remoteAddr: { transport: 'tcp', hostname: '203.0.113.9', port: 1 } }, node: { incoming: { socket: { remoteAddress: '203.0.113.9', remotePort: 1, remoteFamily: 'IPv4' } } } }[runtime]
    expect(await ipOf(ipApp({ getConnInfo }), env)).toBe('203.0.113.9')
    // A reader wins over what the adapter would read itself (here: a header a trusted proxy sets).
    const fromHeader: ConnInfoReader = (c) => ({ remote: { address: c.req.header('x-test-peer') } })
    const app = ipApp({ getConnInfo: fromHeader })
    expect(await (await app.request('/ip/', { headers: { 'x-test-peer': '203.0.113.11' } }, { incoming: { socket: { remoteAddress: '192.0.2.1' } } })).json()).toEqual({ ip: '203.0.113.11' })
    expect(await ipOf(app)).toBeNull()
  })

  it('gives each client its own throttle budget on Bun and Deno, not one shared "unknown"', async () => {
    const api = createApi({ throttles: [new AnonRateThrottle({ rate: '1/min', store: new MemoryThrottleStore(), now: () => 1_000_000 })] })
    const app = new Hono()
    app.get('/t/', policies(api), (c) => c.text('ok'))
    const statuses = async (env: unknown): Promise<number[]> => [(await app.request('/t/', {}, env)).status, (await app.request('/t/', {}, env)).status]
    expect(await statuses(bunServer('192.0.2.50'))).toEqual([200, 429])
    expect(await statuses(bunServer('192.0.2.51'))).toEqual([200, 429])
    expect(await statuses({ remoteAddr: { transport: 'tcp', hostname: '192.0.2.52', port: 1 } })).toEqual([200, 429])
  })
})

/** Serves `app` on this runtime's own server at an ephemeral loopback port; resolves to its URL and a stop function. */
async function serveHere(app: Hono): Promise<{ url: string; stop(): Promise<void> }> {
  const globals = globalThis as {
    Bun?: { serve(options: { fetch: Hono['fetch']; port: number; hostname: string }): { port: number; stop(force?: boolean): Promise<void> | void } }
    Deno?: { serve(options: { port: number; hostname: string; onListen?: () => void }, handler: Hono['fetch']): { addr: { port: number }; shutdown(): Promise<void> } }
  }
  if (globals.Bun !== undefined) {
    const server = globals.Bun.serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    return { url: `http://127.0.0.1:${server.port}`, stop: async () => void (await server.stop(true)) }
  }
  if (globals.Deno !== undefined) {
    const server = globals.Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: () => undefined }, app.fetch)
    return { url: `http://127.0.0.1:${server.addr.port}`, stop: () => server.shutdown() }
  }
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
}

describe(`client address over a real socket (${currentRuntime()}'s own server)`, () => {
  it('is the loopback address the request came from', async () => {
    const { url, stop } = await serveHere(ipApp())
    try {
      const ip = ((await (await fetch(`${url}/ip/`)).json()) as { ip: unknown }).ip
      // Some servers report an IPv4 peer in its IPv6-mapped form.
      expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(ip)
    } finally {
      await stop()
    }
  })
})
