import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { HeaderBag } from '../../core/api-request.js'
import type { ApiResponse } from '../../core/api-response.js'
import { PayloadTooLarge } from '../../core/errors.js'
import { targetPath } from '../../core/request/url-decoding.js'
import { WRITE_FAILED_WIRE, wireResponse, type WireResponse } from '../../core/sendable-response.js'
import type { Settings } from '../../core/settings.js'

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

/** Writes a checked response in one `writeHead` and one `end` (each `Set-Cookie` on its own line). */
function writeWire(res: ServerResponse, wire: WireResponse): void {
  const flat: (string | string[])[] = []
  let cookies: string[] | null = null
  for (const [name, value] of wire.headers) {
    if (name.length === 10 && name.toLowerCase() === 'set-cookie') (cookies ??= []).push(value)
    else flat.push(name, value)
  }
  // One entry for all cookies: writeHead merges pairs into headers set earlier by name.
  if (cookies !== null) flat.push('Set-Cookie', cookies)
  if (wire.body === undefined) {
    res.writeHead(wire.status, flat)
    res.end()
    return
  }
  flat.push('Content-Length', String(Buffer.byteLength(wire.body)))
  res.writeHead(wire.status, flat)
  res.end(wire.body)
}

/** Logs a response that could not be written, once, through the route's `logError`. */
function logWriteFailure(settings: Settings, req: IncomingMessage, error: unknown): void {
  try {
    settings.logError(error, { method: req.method ?? 'GET', path: targetPath(req.url ?? '/') })
  } catch {
    // A logger that throws must not turn a failed write into a crashed process.
  }
}

/**
 * Writes `response` to a node:http response (Express's included) and never throws: a response
 * HTTP cannot carry (a header value Node refuses, a body JSON cannot serialise) is answered
 * `500 {"detail": "A server error occurred."}` and logged once through `settings.logError`; an
 * error while writing ends the connection when the headers are already out.
 */
export function writeNodeResponse(res: ServerResponse, response: ApiResponse, settings: Settings): void {
  const wire = wireResponse(response)
  if (wire.failure !== undefined) logWriteFailure(settings, res.req, wire.failure)
  try {
    writeWire(res, wire)
  } catch (error) {
    logWriteFailure(settings, res.req, error)
    if (res.headersSent) {
      res.destroy()
      return
    }
    for (const name of res.getHeaderNames()) res.removeHeader(name)
    try {
      writeWire(res, WRITE_FAILED_WIRE)
    } catch {
      res.destroy()
    }
  }
}
