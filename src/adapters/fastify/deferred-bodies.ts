/**
 * Bodies DRF's rules still have to judge: a JSON (or form) body a parser could not read is
 * kept as its raw bytes instead of failing at once, so the route's policies answer first (a
 * refusal before a parse error, as in DRF, which parses only when the view reads
 * `request.data`) and the parse error is then DRF's exact 400, read by the core's parser.
 */
import type { FastifyRequest } from 'fastify'
import { parseBody } from '../../core/request/body-parser.js'

/** Raw bodies a parser refused, kept for `policies()` (or the route's handler) to judge. */
const deferredBodies = new WeakSet<Buffer>()

/** Keeps `body` for later: the request's `body` becomes these bytes until `settleDeferredBody`. */
export function deferBody(body: Buffer): Buffer {
  deferredBodies.add(body)
  return body
}

/** The request's body is raw bytes a parser refused and nobody has judged yet. */
export function hasDeferredBody(request: FastifyRequest): request is FastifyRequest & { body: Buffer } {
  return Buffer.isBuffer(request.body) && deferredBodies.has(request.body)
}

/**
 * Judges a deferred body with DRF's parsers: `request.body` becomes what DRF's
 * `request.data` would be (a body JavaScript's `JSON.parse` refuses may be valid Python
 * JSON, `NaN` for one), or DRF's `ParseError` (`JSON parse error - …`) is thrown.
 * Nothing happens for a body that was not deferred.
 */
export async function settleDeferredBody(request: FastifyRequest, parse: (bytes: Buffer) => Promise<unknown> = (bytes) => parseRaw(request, bytes)): Promise<void> {
  const body = request.body
  if (!Buffer.isBuffer(body) || !deferredBodies.has(body)) return
  request.body = await parse(body)
}

function parseRaw(request: FastifyRequest, bytes: Buffer): Promise<unknown> {
  return parseBody(request.headers['content-type'] ?? null, bytes.length === 0 ? null : new Uint8Array(bytes))
}
