/**
 * The node:http request under @hono/node-server, read directly: its Web `Request` makes a
 * `Headers` from the raw headers on first use, a cost per request the other adapters do not
 * pay, and a view reads a few headers only. Types only from node:http: this module is part of
 * the Web-standard core (`drf-gatehouse/hono` runs on Bun, Deno and Workers too).
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Context } from 'hono'

/** The parts of node's `IncomingMessage` read here. */
export interface IncomingLike {
  readonly url?: string | undefined
  readonly headers: IncomingHttpHeaders
  readonly socket?: { readonly encrypted?: unknown } | undefined
}

/** The node:http request @hono/node-server passes as `c.env.incoming`, or `null` on another server (Bun, Deno, Workers). */
export function incomingOf(c: Context): IncomingLike | null {
  const incoming = (c.env as { incoming?: Partial<IncomingLike> } | undefined)?.incoming
  if (typeof incoming !== 'object' || incoming === null) return null
  return typeof incoming.headers === 'object' && incoming.headers !== null && typeof incoming.url === 'string' ? (incoming as IncomingLike) : null
}
