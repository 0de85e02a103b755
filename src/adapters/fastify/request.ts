// Reading a Fastify request as an `ApiRequest`: the URL from the Host header and the target
// as sent, the body Fastify's parsers left (raw bytes and text for the core's parsers, an
// object as it is).
import type { FastifyRequest } from 'fastify'
import { PayloadTooLarge, type ApiRequest, type PolicyOptions, type RequestContext, type User } from '../../index.js'
import { createApiRequest, requestUrlOf } from '../../http/index.js'

/** What `createApiRequest` reads of a request. */
type RawRequest = Parameters<typeof createApiRequest>[0]

declare module 'fastify' {
  interface FastifyRequest {
    /** The user `policies()` identified (the anonymous user when none); unset on routes it does not run on. */
    user?: User | null
    /** The credentials of the scheme that authenticated (a token record, …); `null` when none. */
    auth?: unknown
    /** The guarded request's context (state, JSON format, path params): see `requestContext`. */
    gatehouse?: RequestContext | null
  }
  interface FastifyContextConfig {
    /** Per-route gatehouse policies (`{ config: { gatehouse: { permissions: [IsAuthenticated] } } }`). */
    gatehouse?: PolicyOptions
  }
}

/**
 * The absolute request URL: the request target's path appended to the origin of the Host
 * header, never resolved as a URL (`//evil.example/x` is a path; an absolute-form target keeps
 * only its path), as on every adapter. `null` when the Host header cannot form one.
 */
export function requestUrl(request: FastifyRequest): URL | null {
  return requestUrlOf(request.protocol, request.host, request.originalUrl)
}

/** How the Fastify adapter reads a request (Fastify itself reads the body, within its `bodyLimit`). */
export interface FastifyOptions {
  /** Path parameters to use instead of the matched route's (`request.params`). */
  readonly params?: Readonly<Record<string, string>>
}

/**
 * Translates a Fastify request into an `ApiRequest` (nothing is read until a policy or view asks
 * for it). A body no parser of the app read, or one Fastify read as text, is parsed by the core
 * with DRF's rules (JSON, forms; any other media type is DRF's 415); an object Fastify's own JSON
 * parser made is handed over as it is. `null` when the Host header cannot form a URL (answer 400).
 */
export function toApiRequest(request: FastifyRequest, options: FastifyOptions = {}): ApiRequest | null {
  const url = requestUrl(request)
  return url === null ? null : fastifyApiRequest(request, url, options.params)
}

export function fastifyApiRequest(request: FastifyRequest, url: URL, params: Readonly<Record<string, string>> | undefined): ApiRequest {
  const body: unknown = request.body
  // Raw bytes (gatehouse's parsers) or text (Fastify's text/plain parser): the core's parsers judge them.
  const raw = Buffer.isBuffer(body) || typeof body === 'string'
  return createApiRequest({
    ...requestParts(request, url, params),
    readBody: raw ? async () => bytesOf(body) : NO_BODY,
    ...(raw || body === undefined || body === null ? {} : { parsedBody: () => ({ data: body }) }),
  })
}

const NO_BODY = (): Promise<null> => Promise.resolve(null)

function bytesOf(body: Buffer | string): Uint8Array | null {
  if (body.length === 0) return null
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : new Uint8Array(body.buffer, body.byteOffset, body.length)
}

/** An ApiRequest whose body was refused for its size: reading it throws `PayloadTooLarge`. */
export function oversizedRequest(request: FastifyRequest, url: URL): ApiRequest {
  return createApiRequest({ ...requestParts(request, url, undefined), readBody: () => Promise.reject(new PayloadTooLarge()) })
}

/** What every ApiRequest of a Fastify request shares, whatever its body. */
function requestParts(request: FastifyRequest, url: URL, params: Readonly<Record<string, string>> | undefined): Omit<RawRequest, 'readBody' | 'parsedBody'> {
  return {
    method: request.method,
    url,
    headers: request.headers,
    remoteAddress: request.socket.remoteAddress ?? null,
    params: params ?? stringParams(request.params),
  }
}

/** Fastify's decoded path parameters, keeping only string values (a wildcard `*` included). */
export function stringParams(params: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (typeof params !== 'object' || params === null) return out
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string') out[key] = value
  return out
}

export function apiRequestOf(request: FastifyRequest): ApiRequest | null {
  const url = requestUrl(request)
  return url === null ? null : fastifyApiRequest(request, url, undefined)
}
