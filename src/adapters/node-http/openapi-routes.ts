// The routes of a node:http app that OpenAPI documents describe: node:http has no route table,
// so the one each `router()` (and so `mountRoutes`) was given is kept with the listener it made.
import type { Server } from 'node:http'
import type { DescribedRoute, Route } from '../../index.js'

/** Each listener `router()` made → its routes, with their mount prefix. */
const tables = new WeakMap<object, { readonly routes: readonly Route[]; readonly prefix: string }>()

/** Keeps `routes` (mounted under `prefix`) as the table of `listener`, for `openApiRoutes`. Returns `listener`. */
export function rememberRoutes<L extends object>(listener: L, routes: readonly Route[], prefix: string): L {
  tables.set(listener, { routes, prefix })
  return listener
}

/**
 * The routes of a node:http app that OpenAPI documents describe (`openApiDocument`,
 * `openApiView`'s `routes`): each view mounted with `mountRoutes(server, routes)`, or served by
 * a `router(routes)` listener you pass (or the server it listens on), with its prefix. node:http
 * has no table of your own handlers: declare those with `policyRoute(method, path, guarded)`.
 *
 * @example
 * const server = mountRoutes(createServer(), [route('/api/books/', books)])
 * const doc = openApiDocument(openApiRoutes(server), { info: { title: 'Books', version: '1' } })
 */
export function openApiRoutes(target: Server | ((...args: never[]) => unknown)): DescribedRoute[] {
  const listeners: readonly unknown[] = typeof target === 'function' ? [target] : target.listeners('request')
  const out: DescribedRoute[] = []
  for (const listener of listeners) {
    const table = typeof listener === 'function' ? tables.get(listener) : undefined
    if (table === undefined) continue
    for (const r of table.routes) out.push({ ...r, path: `${table.prefix}${r.path}` })
  }
  return out
}
