/**
 * The same app on the four adapters, each on a real loopback socket, and a raw HTTP client
 * that sends any request target (`//host/x`, `http://host/x`) and any header bytes.
 */
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { Hono } from 'hono'

export const FOUR = ['fastify', 'express', 'hono', 'node'] as const
export type Adapter = (typeof FOUR)[number]

/** How to build the app on each framework. */
export interface FourApps {
  fastify(app: FastifyInstance): Promise<void>
  express(app: express.Express): void
  hono(app: Hono): void
  /** node:http has no app: the request listener. */
  node(): Parameters<typeof createServer>[1]
}

/** The four servers, listening; `close()` stops them all. */
export interface FourServers {
  readonly ports: ReadonlyMap<Adapter, number>
  close(): Promise<void>
}

function listening(server: Server | ServerType): Promise<number> {
  return new Promise((resolve) => {
    if (server.listening) return resolve((server.address() as AddressInfo).port)
    server.once('listening', () => resolve((server.address() as AddressInfo).port))
  })
}

export async function startFour(apps: FourApps): Promise<FourServers> {
  const ports = new Map<Adapter, number>()
  const closers: (() => Promise<void>)[] = []
  const fastify = Fastify()
  await apps.fastify(fastify)
  await fastify.listen({ port: 0, host: '127.0.0.1' })
  ports.set('fastify', (fastify.server.address() as AddressInfo).port)
  closers.push(() => fastify.close())
  const expressApp = express()
  expressApp.disable('x-powered-by')
  expressApp.disable('etag')
  apps.express(expressApp)
  const expressServer = createServer(expressApp).listen(0, '127.0.0.1')
  ports.set('express', await listening(expressServer))
  const honoApp = new Hono()
  apps.hono(honoApp)
  const honoServer = serve({ fetch: honoApp.fetch, port: 0, hostname: '127.0.0.1' })
  ports.set('hono', await listening(honoServer))
  const nodeServer = createServer(apps.node()).listen(0, '127.0.0.1')
  ports.set('node', await listening(nodeServer))
  for (const server of [expressServer, honoServer, nodeServer]) {
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          if ('closeAllConnections' in server) server.closeAllConnections()
        }),
    )
  }
  return { ports, close: async () => void (await Promise.all(closers.map((close) => close()))) }
}

/** An answer as the client saw it: status, headers but Date/Connection/Keep-Alive (sorted), body. */
export interface RawAnswer {
  readonly status: number
  readonly headers: readonly string[]
  readonly body: string
}

const TRANSPORT = new Set(['date', 'connection', 'keep-alive'])

/**
 * Sends `GET target` (raw, any request target) with `headers` on a fresh connection and reads
 * the answer; `null` when the server closed the connection without one.
 */
export function rawRequest(port: number, method: string, target: string, headers: Readonly<Record<string, string>>): Promise<RawAnswer | null> {
  return new Promise((resolve, reject) => {
    const lines = [`${method} ${target} HTTP/1.1`, ...Object.entries({ Connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`), '', '']
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.from(lines.join('\r\n'), 'latin1')))
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(null) : reject(error)))
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      if (text === '') return resolve(null)
      const split = text.indexOf('\r\n\r\n')
      const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n')
      const pairs = headerLines
        .map((line) => {
          const colon = line.indexOf(':')
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const
        })
        .filter(([name]) => !TRANSPORT.has(name))
        .map(([name, value]) => `${name}: ${value}`)
      resolve({ status: Number(statusLine.split(' ')[1]), headers: pairs.sort(), body: text.slice(split + 4) })
    })
  })
}
