import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ApiRequest } from '../../core/api-request.js'
import { jsonResponse, serializeBody, type ApiResponse } from '../../core/api-response.js'
import { createApiRequest } from '../../core/request-factory.js'
import type { ApiView } from '../../core/view.js'


/** Builds the absolute request URL; `null` when the Host header cannot form one. */
function requestUrl(request: FastifyRequest): URL | null {
  try {
    return new URL(request.url, `${request.protocol}://${request.host}`)
  } catch {
    return null
  }
}

/** Translates a Fastify request (whose body the raw parser left as a Buffer) into an `ApiRequest`. */
export function toApiRequest(request: FastifyRequest, url: URL): ApiRequest {
  return createApiRequest({
    method: request.method,
    url,
    headers: {
      get(name: string): string | null {
        const value = request.headers[name.toLowerCase()]
        if (value === undefined) return null
        return Array.isArray(value) ? value.join(', ') : value
      },
    },
    remoteAddress: request.socket.remoteAddress ?? null,
    readBody: async () => (Buffer.isBuffer(request.body) ? new Uint8Array(request.body) : null),
  })
}

/** Writes an `ApiResponse` to a Fastify reply. */
export function writeResponse(reply: FastifyReply, response: ApiResponse): FastifyReply {
  reply.code(response.status)
  const setCookies: string[] = []
  for (const [name, value] of response.headers) {
    if (name.toLowerCase() === 'set-cookie') setCookies.push(value)
    else reply.header(name, value)
  }
  if (setCookies.length > 0) reply.header('set-cookie', setCookies)
  const body = serializeBody(response)
  // A Buffer keeps Fastify from appending `; charset=utf-8` (DRF sends bare `application/json`).
  return body === undefined ? reply.send() : reply.send(Buffer.from(body))
}

/**
 * Mounts a gatehouse view at `path` for every method Fastify routes (TRACE and QUERY
 * included), so the view answers DRF's 405 `Method "X" not allowed.` itself.
 */
export function mountView(app: FastifyInstance, path: string, view: ApiView): void {
  app.route({
    method: [...app.supportedMethods],
    url: path,
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const url = requestUrl(request)
      if (url === null) return writeResponse(reply, jsonResponse(400, { detail: 'Invalid Host header.' }))
      return writeResponse(reply, await view.handle(toApiRequest(request, url)))
    },
  })
}

/**
 * Prepares a Fastify instance for gatehouse views: bodies reach the core as raw bytes
 * (so DRF's parse and media-type errors apply), and framework-level errors (unknown
 * routes, oversized bodies) answer in DRF's `{"detail": …}` shape.
 */
export function setupFastify(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
  app.setNotFoundHandler((_request, reply) => writeResponse(reply, jsonResponse(404, { detail: 'Not found.' })))
  app.setErrorHandler((error: { statusCode?: number; message?: string }, request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) request.log.error(error)
    const detail =
      status === 413 ? 'Request body is too large.' : status === 500 ? 'A server error occurred.' : 'Malformed request.'
    return writeResponse(reply, jsonResponse(status, { detail }))
  })
}
