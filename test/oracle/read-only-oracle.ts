import { createServer, request as httpRequest, Agent, type IncomingHttpHeaders, type Server } from 'node:http'
import { startOracle, type RunningOracle } from './oracle-process.js'

/*
 * One DRF oracle for the suites that only read from it, shared by every framework project and both
 * databases (the oracle always runs on its own freshly seeded SQLite, whichever database gatehouse
 * is on), behind a proxy that remembers DRF's answers. A GET on fixed seed data cannot change the
 * oracle's state, so DRF's answer to the same request is the same answer: each framework's bytes are
 * still compared with DRF's, DRF computes them once instead of eight times. Anything but GET and
 * HEAD is refused (405) so that a suite that starts writing fails here instead of sharing state.
 * Loaded by vitest's global setup (test/oracle/simplejwt/simplejwt-oracle-setup.ts): no vitest imports.
 */

/** A remembered answer of the oracle. */
interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** Hop-by-hop headers the proxy neither keys on nor passes on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'te', 'upgrade', 'trailer'])

/** The running proxy in front of a shared read-only oracle. */
export interface ReadOnlyOracle extends RunningOracle {
  /** Requests answered, and how many of them the oracle computed. */
  stats(): { readonly requests: number; readonly computed: number }
}

/**
 * Starts the DRF oracle and a caching, read-only proxy in front of it on another loopback port;
 * `baseUrl` is the proxy's. The proxy passes the request's own Host on, so DRF's links name the proxy.
 */
export async function startReadOnlyOracle(): Promise<ReadOnlyOracle> {
  const oracle = await startOracle({ graceMs: 3_000 })
  const target = new URL(oracle.baseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  const answers = new Map<string, Promise<Answer>>()
  let requests = 0
  const forward = (method: string, path: string, headers: IncomingHttpHeaders): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const upstream = httpRequest({ host: target.hostname, port: target.port, method, path, headers, agent }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }))
        response.on('error', reject)
      })
      upstream.on('error', reject)
      upstream.end()
    })
  const server: Server = createServer((req, res) => {
    const method = req.method ?? 'GET'
    req.resume()
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { 'Content-Type': 'text/plain' }).end(`the shared DRF oracle is read-only: ${method} ${req.url ?? ''} refused`)
      return
    }
    requests++
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name) && name !== 'content-length'))
    // The key is the whole request: method, raw path and query, and every header the client sent.
    const key = JSON.stringify([method, req.url ?? '/', Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))])
    let answer = answers.get(key)
    if (answer === undefined) {
      answer = forward(method, req.url ?? '/', headers)
      answers.set(key, answer)
      // A failed exchange is not remembered: the next asker tries again.
      answer.catch(() => answers.delete(key))
    }
    answer.then(
      ({ status, headers: answered, body }) => {
        const passed = Object.fromEntries(Object.entries(answered).filter(([name]) => !HOP_BY_HOP.has(name)))
        res.writeHead(status, passed as Record<string, string | string[]>).end(body)
      },
      (error: unknown) => {
        res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`the shared DRF oracle did not answer: ${String(error)}`)
      },
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the read-only oracle proxy has no port')
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    stats: () => ({ requests, computed: answers.size }),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      agent.destroy()
      await oracle.close()
    },
  }
}
