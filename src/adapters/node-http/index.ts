import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { HeaderBag } from '../../core/api-request.js'
import type { ApiRequest } from '../../core/api-request.js'
import { jsonResponse, serializeBody, type ApiResponse } from '../../core/api-response.js'
import { PayloadTooLarge } from '../../core/errors.js'
import { createApiRequest } from '../../core/request-factory.js'
import type { Guard } from '../../core/guard.js'
import type { RequestState } from '../../core/pipeline.js'
import { matchRoutes, type Route } from '../../core/route.js'
import { targetPath } from '../../core/url-decoding.js'
import type { ApiView } from '../../core/view.js'

/** How the node:http adapter reads a request. */
export interface NodeHttpOptions {
  /**
   * Believe `X-Forwarded-Proto` (set it only behind a proxy that overwrites the header).
   * @default false
   */
  readonly trustProxy?: boolean
  /** Largest request body read, in bytes; a larger one answers 413. @default 1048576 (1 MiB, as Fastify) */
  readonly bodyLimit?: number
}

const DEFAULT_BODY_LIMIT = 1024 * 1024

export { PayloadTooLarge } from '../../core/errors.js'

/**
 * The absolute request URL from the `Host` header and the request target; `null`
 * when the Host header is missing or is not a bare `host[:port]` (a Host such as
 * `a/b?` must not be able to rewrite the path that page links are built from).
 */
export function requestUrl(req: IncomingMessage, options: NodeHttpOptions = {}): URL | null {
  const host = req.headers.host
  if (host === undefined || host === '') return null
  let protocol = 'encrypted' in req.socket && req.socket.encrypted === true ? 'https' : 'http'
  if (options.trustProxy === true) {
    const forwarded = req.headers['x-forwarded-proto']
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase()
    if (first === 'http' || first === 'https') protocol = first
  }
  try {
    const base = new URL(`${protocol}://${host}`)
    if (base.pathname !== '/' || base.search !== '' || base.hash !== '' || base.username !== '' || base.password !== '') return null
    const target = req.url ?? '/'
    // Origin-form (`/path?q`) is appended, never resolved: `//evil/x` stays a path. Absolute-form keeps its path.
    const absolute = target.startsWith('/') ? null : new URL(target)
    return new URL(`${base.origin}${absolute === null ? target : `${absolute.pathname}${absolute.search}`}`)
  } catch {
    return null
  }
}

/**
 * Node's parsed request headers as a `HeaderBag` (case-insensitive; repeated headers joined
 * with `, `). Shared by every adapter built on node:http (Express, Fastify).
 */
export function headerBag(headers: IncomingHttpHeaders): HeaderBag {
  return {
    get(name: string): string | null {
      const value = headers[name.toLowerCase()]
      if (value === undefined) return null
      return Array.isArray(value) ? value.join(', ') : value
    },
  }
}

/** Reads the whole body, failing with `PayloadTooLarge` past `limit` bytes; `null` when empty. */
export function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new PayloadTooLarge())
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const cleanup = (): void => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        reject(new PayloadTooLarge())
        return
      }
      chunks.push(chunk)
    }
    const onEnd = (): void => {
      cleanup()
      resolve(size === 0 ? null : new Uint8Array(Buffer.concat(chunks, size)))
    }
    const onError = (error: Error): void => {
      cleanup()
      reject(error)
    }
    // A client gone mid-body: settle instead of leaving the view waiting forever.
    const onClose = (): void => {
      cleanup()
      if (!req.complete) reject(new Error('request aborted before its body ended'))
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}

/**
 * Translates a node:http request into an `ApiRequest` (the body is read only when
 * a view asks for it). `null` when the Host header cannot form a URL: answer 400.
 */
export function toApiRequest(
  req: IncomingMessage,
  options: NodeHttpOptions = {},
  params?: Readonly<Record<string, string>>,
): ApiRequest | null {
  const url = requestUrl(req, options)
  if (url === null) return null
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: req.method ?? 'GET',
    url,
    headers: headerBag(req.headers),
    remoteAddress: req.socket.remoteAddress ?? null,
    ...(params === undefined ? {} : { params }),
    readBody: () => readBody(req, limit),
  })
}

/** Writes an `ApiResponse` to a node:http response (each `Set-Cookie` on its own line). */
export function writeResponse(res: ServerResponse, response: ApiResponse): void {
  const setCookies: string[] = []
  for (const [name, value] of response.headers) {
    if (name.toLowerCase() === 'set-cookie') setCookies.push(value)
    else res.setHeader(name, value)
  }
  if (setCookies.length > 0) res.setHeader('Set-Cookie', setCookies)
  const body = serializeBody(response)
  res.statusCode = response.status
  if (body === undefined) {
    res.end()
    return
  }
  const bytes = Buffer.from(body)
  res.setHeader('Content-Length', bytes.length)
  res.end(bytes)
}

const INVALID_HOST = jsonResponse(400, { detail: 'Invalid Host header.' })
const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })

/** A node:http request listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/** Answers every request with `view` (which never throws); a malformed Host is a 400. */
export function viewHandler(
  view: ApiView,
  options: NodeHttpOptions = {},
  params?: Readonly<Record<string, string>>,
): NodeHandler {
  return (req, res) => serveView(view, options, req, res, params)
}

/** One request answered by `view` (which never throws); a malformed Host is a 400. */
async function serveView(
  view: ApiView,
  options: NodeHttpOptions,
  req: IncomingMessage,
  res: ServerResponse,
  params: Readonly<Record<string, string>> | undefined,
): Promise<void> {
  const request = toApiRequest(req, options, params)
  const response = request === null ? INVALID_HOST : await view.handle(request)
  // A body left unread past the limit is not drained: the connection closes instead.
  if (response.status === 413 && !req.complete) res.setHeader('Connection', 'close')
  writeResponse(res, response)
}

/**
 * Routes requests to views: `routes` is a list of `Route`s (`route('/books/:id/', view)`, path
 * parameters reach `ctx.params`) or, as before, a record of exact paths. The query is ignored
 * and the trailing slash is significant, as in DRF's URL conf; the path is matched
 * percent-decoded (`%2F` is a `/`) and case-sensitively, with dot segments kept as sent
 * (`/api/./x/` is no route, as in Django); an unknown path is DRF's 404 `Not found.`.
 */
export function router(routes: readonly Route[] | Readonly<Record<string, ApiView>>, options: NodeHttpOptions = {}): NodeHandler {
  const list: readonly Route[] = Array.isArray(routes)
    ? routes
    : Object.entries(routes as Readonly<Record<string, ApiView>>).map(([path, view]) => ({ path, view }))
  const match = matchRoutes(list)
  return async (req, res) => {
    const url = requestUrl(req, options)
    if (url === null) return writeResponse(res, INVALID_HOST)
    // The path as sent (a URL object would resolve `/./` and `/../`, which Django routes as they are).
    const target = req.url ?? '/'
    const found = match(target.startsWith('/') ? targetPath(target) : url.pathname)
    if (found === null) return writeResponse(res, NOT_FOUND)
    return serveView(found.route.view, options, req, res, found.params)
  }
}

/** A node:http handler of the app's own, run once the route's policies passed. */
export type GuardedHandler = (req: IncomingMessage, res: ServerResponse, state: RequestState) => Promise<void> | void

/**
 * Middleware style on plain node:http: runs `guard` (from `api.guard({...})`) and then the
 * app's own `handler` with the request's state (`state.user`, `state.auth`, `state.request`
 * for `paginatedList`). An `ApiError` from the guard or the handler is answered in DRF's JSON
 * shape; any other error is rethrown to the caller (the app's own error handling).
 *
 * @example
 * const api = createApi({ authentication: [tokenAuth] })
 * createServer(withPolicies(api.guard({ permissions: [new IsAuthenticated()] }), (req, res, state) => {
 *   res.end(JSON.stringify({ username: state.user.username }))
 * }))
 */
export function withPolicies(guard: Guard, handler: GuardedHandler, options: NodeHttpOptions = {}): NodeHandler {
  return async (req, res) => {
    const request = toApiRequest(req, options)
    if (request === null) return writeResponse(res, INVALID_HOST)
    try {
      const state = await guard.check(request)
      if (state.vary.length > 0) res.setHeader('Vary', state.vary.join(', '))
      await handler(req, res, state)
    } catch (error) {
      const response = guard.renderError(error, request)
      if (response === null || res.headersSent) throw error
      writeResponse(res, response)
    }
  }
}
