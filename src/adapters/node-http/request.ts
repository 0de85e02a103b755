// Reading a node:http request: its URL, headers and body as an `ApiRequest`, and the context
// `policies()` left on it.
import type { IncomingMessage } from 'node:http'
import type { ApiRequest, RequestContext } from '../../index.js'
import { createApiRequest, readBody, requestUrlOf } from '../../http/index.js'

/** How the node:http adapter reads a request. */
export interface NodeHttpOptions {
  /**
   * Believe `X-Forwarded-Proto` (set it only behind a proxy that overwrites the header).
   * @default false
   */
  readonly trustProxy?: boolean
  /** Largest request body read, in bytes; a larger one answers 413. @default 1048576 (1 MiB, as Fastify) */
  readonly bodyLimit?: number
  /** Path parameters of the request (`{ id: '7' }`), when your own routing matched them. @default none */
  readonly params?: Readonly<Record<string, string>>
}

const DEFAULT_BODY_LIMIT = 1024 * 1024

/**
 * The absolute request URL from the `Host` header and the request target; `null`
 * when the Host header is missing or is not a bare `host[:port]` (a Host such as
 * `a/b?` must not be able to rewrite the path that page links are built from).
 */
export function requestUrl(req: IncomingMessage, options: NodeHttpOptions = {}): URL | null {
  let protocol = 'encrypted' in req.socket && req.socket.encrypted === true ? 'https' : 'http'
  if (options.trustProxy === true) {
    const forwarded = req.headers['x-forwarded-proto']
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase()
    if (first === 'http' || first === 'https') protocol = first
  }
  return requestUrlOf(protocol, req.headers.host, req.url ?? '/')
}

/**
 * Translates a node:http request into an `ApiRequest` (the body is read only when
 * a view asks for it). `null` when the Host header cannot form a URL: answer 400.
 */
export function toApiRequest(req: IncomingMessage, options: NodeHttpOptions = {}): ApiRequest | null {
  return nodeApiRequest(req, options, options.params)
}

/** `toApiRequest` with the route's parameters apart from the options (no options object per request). */
export function nodeApiRequest(req: IncomingMessage, options: NodeHttpOptions, routeParams: Readonly<Record<string, string>> | undefined): ApiRequest | null {
  const url = requestUrl(req, options)
  if (url === null) return null
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: req.method ?? 'GET',
    url,
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress ?? null,
    ...(routeParams === undefined ? {} : { params: routeParams }),
    readBody: () => readBody(req, limit),
  })
}

/** The context of each request `policies()` let through (node:http has no request object of ours to put it on). */
const contexts = new WeakMap<IncomingMessage, RequestContext>()

/** Notes the context `policies()` gave `req`, for `requestContext(req)`, `sendApiResponse` and `errorHandler`. */
export function keepContext(req: IncomingMessage, context: RequestContext): void {
  contexts.set(req, context)
}

/** The context `policies()` gave `req`, or `undefined` when it did not run on it. */
export function keptContext(req: IncomingMessage): RequestContext | undefined {
  return contexts.get(req)
}
