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
  let typed = false
  for (const [name, value] of wire.headers) {
    if (name.length === 10 && name.toLowerCase() === 'set-cookie') (setCookies ??= []).push(value)
    else {
      if (name.length === 12 && name.toLowerCase() === 'content-type') typed = true
      reply.header(name, value)
    }
  }
  if (setCookies !== null) reply.header('set-cookie', setCookies)
  if (wire.body === undefined) return reply.send()
  // Text as it is (Node writes the head and body in one string, no Buffer copy): a serializer of
  // the reply's own keeps Fastify from appending `; charset=utf-8` to a JSON type (DRF sends bare
  // `application/json`). Without a Content-Type, Fastify would call text `text/plain`: a Buffer
  // keeps its `application/octet-stream`, as before.
  return typed ? reply.serializer(asSent).send(wire.body) : reply.send(Buffer.from(wire.body))
}

/**
 * The reply's serializer for text already serialised: Fastify's JSON branch, and its charset,
 * skipped. An object (an error handler's answer, should a later hook fail) is JSON, as Fastify's own.
 */
function asSent(payload: unknown): string {
  return typeof payload === 'string' ? payload : JSON.stringify(payload)
}

export function addVary(reply: FastifyReply, names: readonly string[]): void {
  const current = reply.getHeader('vary')
  const list = typeof current === 'string' && current !== '' ? current.split(',').map((s) => s.trim()) : []
  for (const name of names) if (!list.some((v) => v.toLowerCase() === name.toLowerCase())) list.push(name)
  reply.header('vary', list.join(', '))
}
