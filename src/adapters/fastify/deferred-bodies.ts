/**
 * Bodies DRF's rules still have to judge, kept as their raw bytes instead of failing at once, so
 * the route's policies answer first (a refusal before a parse error, as in DRF, which parses only
 * when the view reads `request.data`):
 * - a JSON (or form) body a parser could not read: judged once the policies passed, DRF's exact 400;
 * - a body of a media type no parser of the app reads (`text/xml`, a form without
 *   @fastify/formbody): judged by the core's parsers when it is read, so a form is parsed as on
 *   every adapter and any other type is DRF's 415.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { parseBody } from '../../http/index.js'

/** Raw bodies a parser refused, kept for `policies()` (or the route's handler) to judge. */
const deferredBodies = new WeakSet<Buffer>()
/** Raw bodies no parser read, judged when read (or before the handler of a route without policies). */
const unparsedBodies = new WeakSet<Buffer>()

/** Keeps `body` for later: the request's `body` becomes these bytes until `settleDeferredBody`. */
export function deferBody(body: Buffer): Buffer {
  deferredBodies.add(body)
  return body
}

/** Keeps a body no parser of the app reads as its bytes, for the core's parsers. */
export function keepUnparsed(body: Buffer): Buffer {
  unparsedBodies.add(body)
  return body
}

/** The request's body is raw bytes a parser refused, or no parser read, and nobody has judged yet. */
export function hasDeferredBody(request: FastifyRequest): request is FastifyRequest & { body: Buffer } {
  const body = request.body
  return Buffer.isBuffer(body) && (deferredBodies.has(body) || unparsedBodies.has(body))
}

/** The request's body is raw bytes a parser refused (malformed JSON or form). */
export function hasMalformedBody(request: FastifyRequest): request is FastifyRequest & { body: Buffer } {
  return Buffer.isBuffer(request.body) && deferredBodies.has(request.body)
}

/**
 * Judges a deferred body with DRF's parsers: `request.body` becomes what DRF's
 * `request.data` would be (a body JavaScript's `JSON.parse` refuses may be valid Python
 * JSON, `NaN` for one), or DRF's `ParseError` (`JSON parse error - …`) or
 * `UnsupportedMediaType` is thrown. Nothing happens for a body that was not deferred.
 */
export async function settleDeferredBody(request: FastifyRequest, parse: (bytes: Buffer) => Promise<unknown> = (bytes) => parseRaw(request, bytes)): Promise<void> {
  if (!hasDeferredBody(request)) return
  const parsed = await parse(request.body)
  ;(request as FastifyRequest).body = parsed
}

function parseRaw(request: FastifyRequest, bytes: Buffer): Promise<unknown> {
  return parseBody(request.headers['content-type'] ?? null, bytes.length === 0 ? null : new Uint8Array(bytes))
}

/**
 * Makes a route's handler judge a deferred body before it runs (`settleDeferredBody`): the
 * handler of a route whose policies did not already do so sees DRF's data or never runs.
 * Requests without a deferred body go straight to the handler.
 */
export function judgeDeferredBodyFirst(routeOptions: RouteOptions): void {
  const handler = routeOptions.handler
  routeOptions.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    if (!hasDeferredBody(request)) return handler.call(this, request, reply)
    return settleDeferredBody(request).then(() => handler.call(this, request, reply))
  }
}

/**
 * A body of a media type no parser of the app reads (a form without @fastify/formbody,
 * `text/xml`) is kept as its bytes instead of Fastify's own 415 before the policies: read
 * through `requestContext(request).request.body()`, a form is parsed as on every adapter and any
 * other type is DRF's `415 Unsupported media type "…" in request.`, after a refusal; a route
 * without policies judges it before its handler. An app's own catch-all parser is kept.
 */
export function keepOtherBodies(app: FastifyInstance): void {
  if (app.hasContentTypeParser('*')) return
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body: Buffer, done) => done(null, keepUnparsed(body)))
}
