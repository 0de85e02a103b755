/**
 * Serves a Web `fetch` handler (the Hono app) on the runtime's own HTTP server: `Bun.serve`
 * on Bun, `Deno.serve` on Deno. Node has none; there the reference API uses node:http.
 * Each server hands Hono its connection as `fetch`'s second argument, where gatehouse's
 * Hono adapter reads the client's address.
 */

/** A Web request handler, as `app.fetch` of Hono is. */
type FetchHandler = (request: Request, connection?: unknown) => Response | Promise<Response>

/** The part of Bun's global the server uses. */
interface BunGlobal {
  serve(options: { fetch: FetchHandler; port: number; hostname: string; idleTimeout?: number }): {
    readonly port: number
    readonly hostname: string
    stop(closeActiveConnections?: boolean): Promise<void> | void
  }
}

/** The part of Deno's global the server uses. */
interface DenoGlobal {
  serve(
    options: { port: number; hostname: string; onListen?: (address: { hostname: string; port: number }) => void },
    handler: FetchHandler,
  ): { readonly addr: { readonly hostname: string; readonly port: number }; shutdown(): Promise<void> }
}

/** The runtime whose own server can serve `fetch`; `null` on Node. */
export function runtimeServerName(): 'bun' | 'deno' | null {
  const globals = globalThis as { Bun?: unknown; Deno?: unknown }
  if (globals.Bun !== undefined) return 'bun'
  if (globals.Deno !== undefined) return 'deno'
  return null
}

/** A listening server: its address (`http://host:port`), and how to stop it (in-flight requests finish). */
export interface RuntimeServer {
  readonly address: string
  close(): Promise<void>
}

function urlOf(hostname: string, port: number): string {
  return `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`
}

/**
 * Serves `fetch` on `listen` with this runtime's own server (port 0: a free one).
 * @throws Error on Node, which has no such server
 */
export function serveOnRuntime(fetch: FetchHandler, listen: { readonly port: number; readonly host: string }): RuntimeServer {
  const globals = globalThis as { Bun?: BunGlobal; Deno?: DenoGlobal }
  if (globals.Bun !== undefined) {
    // Bun closes a connection idle this long (seconds): the same 30 s a whole request gets on node:http.
    const server = globals.Bun.serve({ fetch, port: listen.port, hostname: listen.host, idleTimeout: 30 })
    return { address: urlOf(listen.host, server.port), close: async () => void (await server.stop()) }
  }
  if (globals.Deno !== undefined) {
    const server = globals.Deno.serve({ port: listen.port, hostname: listen.host, onListen: () => undefined }, fetch)
    return { address: urlOf(listen.host, server.addr.port), close: () => server.shutdown() }
  }
  throw new Error('serveOnRuntime needs Bun or Deno: on Node, serve the app with @hono/node-server')
}
