// Writing an `ApiResponse` to a Fastify reply, in one `send`.
import type { FastifyReply } from 'fastify'
import { DEFAULT_SETTINGS, type ApiResponse, type Settings } from '../../index.js'
import { targetPath, wireResponse } from '../../http/index.js'

/**
 * Sends an `ApiResponse` (from `paginatedList`, `jsonResponse`, …) from an app's own handler:
 * `return sendApiResponse(reply, await paginatedList(…))`. A response HTTP cannot carry (a
 * header value Node refuses) is answered `500 {"detail": "A server error occurred."}` instead,
 * logged once through the route's `logError` (the guarded request's, else the default).
 */
export function sendApiResponse(reply: FastifyReply, response: ApiResponse): FastifyReply {
  return sendWire(reply, response, reply.request.gatehouse?.settings ?? DEFAULT_SETTINGS)
}

/** Writes `response` in one `send`; what cannot be sent is the logged 500 (see `wireResponse`). */
export function sendWire(reply: FastifyReply, response: ApiResponse, settings: Settings): FastifyReply {
  const wire = wireResponse(response)
  if (wire.failure !== undefined) settings.logError(wire.failure, { method: reply.request.method, path: targetPath(reply.request.url) })
  reply.code(wire.status)
  let setCookies: string[] | null = null
  for (const [name, value] of wire.headers) {
    if (name.length === 10 && name.toLowerCase() === 'set-cookie') (setCookies ??= []).push(value)
    else reply.header(name, value)
  }
  if (setCookies !== null) reply.header('set-cookie', setCookies)
  // A Buffer keeps Fastify from appending `; charset=utf-8` (DRF sends bare `application/json`).
  return wire.body === undefined ? reply.send() : reply.send(Buffer.from(wire.body))
}

export function addVary(reply: FastifyReply, names: readonly string[]): void {
  const current = reply.getHeader('vary')
  const list = typeof current === 'string' && current !== '' ? current.split(',').map((s) => s.trim()) : []
  for (const name of names) if (!list.some((v) => v.toLowerCase() === name.toLowerCase())) list.push(name)
  reply.header('vary', list.join(', '))
}
