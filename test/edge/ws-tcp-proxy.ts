/**
 * A minimal WebSocket → TCP proxy, what Neon runs in front of PostgreSQL: each WebSocket
 * connection opens a TCP connection to the `address` query parameter's host:port and the two
 * pipe bytes both ways. For tests only (it listens on 127.0.0.1 and connects where asked).
 */
import { createServer, type Server } from 'node:http'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type RawData } from 'ws'

/** A running proxy: `host:port` for `neonConfig.wsProxy`. */
export interface WsTcpProxy {
  readonly address: string
  /** WebSocket connections it has piped so far. */
  readonly connections: number
  /** Its TCP connections to the server that are still open (PostgreSQL has not closed them). */
  readonly open: number
  close(): Promise<void>
}

export async function startWsTcpProxy(): Promise<WsTcpProxy> {
  const server: Server = createServer()
  const wss = new WebSocketServer({ server })
  let connections = 0
  let open = 0
  wss.on('connection', (socket, request) => {
    connections++
    const target = new URL(request.url ?? '/', 'http://proxy').searchParams.get('address') ?? ''
    const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))]
    const tcp = connect({ host, port })
    open++
    tcp.on('data', (chunk) => socket.send(chunk))
    tcp.on('close', () => {
      open--
      socket.close()
    })
    tcp.on('error', () => socket.terminate())
    socket.on('message', (data: RawData) => tcp.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)))
    socket.on('close', () => tcp.end())
    socket.on('error', () => tcp.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    address: `127.0.0.1:${port}`,
    get connections() {
      return connections
    },
    get open() {
      return open
    },
    // Everything is torn down before the first await, so a process 'exit' handler (which runs no
    // more than that) closes it too (test/helpers/edge-drivers.ts).
    close: async () => {
      for (const client of wss.clients) client.terminate()
      const wssClosed = new Promise<void>((resolve) => wss.close(() => resolve()))
      server.closeAllConnections()
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()))
      await Promise.all([wssClosed, serverClosed])
    },
  }
}
