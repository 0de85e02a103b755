// Reading an Express request as an `ApiRequest`: the URL as Express sees it (mount path, `trust
// proxy`), a body an Express parser already read, or the stream.
import type { Request } from 'express'
import type { ApiRequest, RequestContext, RequestData, User } from '../../index.js'
import { createApiRequest, readBody, requestUrlOf } from '../../http/index.js'

declare global {
  // Declaration merging is how Express types what middleware adds to its request.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The user gatehouse's `policies()` identified (the anonymous user when none). */
      user?: User
      /** What the authenticating scheme returned beside the user (a token row…), or `null`. */
      auth?: unknown
      /** The guarded request's context (settings, authenticator, Vary, params): see `requestContext`. */
      gatehouse?: RequestContext
    }
  }
}

/** How the Express adapter reads a request. */
export interface ExpressOptions {
  /**
   * Largest body read when no Express body parser ran first, in bytes; larger answers 413.
   * @default 1048576 (1 MiB)
   */
  readonly bodyLimit?: number
  /** Path parameters to use instead of the matched route's (`req.params`). */
  readonly params?: Readonly<Record<string, string>>
}

const DEFAULT_BODY_LIMIT = 1024 * 1024

/** The first value of a possibly comma-joined header. */
function firstValue(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim()
}

/**
 * The absolute request URL: `req.originalUrl` keeps the mount path (`app.use('/api', router)`),
 * protocol and host come from Express so `trust proxy` applies (X-Forwarded-Proto / -Host only
 * from a trusted peer). `null` when the host is missing or not a bare `host[:port]`.
 */
export function requestUrl(req: Request): URL | null {
  const trust = req.app.get('trust proxy fn') as ((address: string | undefined, hop: number) => boolean) | undefined
  if (trust?.(req.socket.remoteAddress, 0) !== true) {
    // No trusted proxy (the common case): what `req.protocol` and `req.get('host')` answer then, read
    // directly (the `protocol` getter would ask the trust function again).
    const encrypted = (req.socket as { readonly encrypted?: unknown }).encrypted === true
    return requestUrlOf(encrypted ? 'https' : 'http', req.headers.host, req.originalUrl)
  }
  return requestUrlOf(req.protocol, firstValue(req.get('x-forwarded-host')) ?? req.get('host'), req.originalUrl)
}

/** Express's body parsers (`express.json()`, `urlencoded()`…) mark the request or drain its stream. */
function bodyConsumed(req: Request): boolean {
  return (req as { _body?: unknown })._body === true || req.readableEnded
}

/** The already-parsed body: objects as the parser left them, raw/text parser output as bytes for the core. */
function parsedBody(req: Request): { readonly data: RequestData } | null {
  if (!bodyConsumed(req)) return null
  const body: unknown = req.body
  // A drained stream with nothing left on the request: no body, never a wait for bytes that will not come.
  if (body === undefined) return { data: null }
  if (Buffer.isBuffer(body) || typeof body === 'string') return null
  return { data: body }
}

/** The raw bytes of a body a raw/text parser read, or the stream itself. */
function rawBody(req: Request, limit: number): Promise<Uint8Array | null> {
  const body: unknown = req.body
  if (bodyConsumed(req)) {
    if (Buffer.isBuffer(body)) return Promise.resolve(body.length === 0 ? null : new Uint8Array(body))
    if (typeof body === 'string') return Promise.resolve(body === '' ? null : new TextEncoder().encode(body))
    return Promise.resolve(null)
  }
  return readBody(req, limit)
}

/**
 * Translates an Express request into an `ApiRequest`: the URL keeps the mount path and
 * honours `trust proxy`; a body Express already parsed is used as is, otherwise the stream is
 * read (with `bodyLimit`) when a view asks. `null` when the host cannot form a URL (answer 400).
 */
export function toApiRequest(req: Request, options: ExpressOptions = {}): ApiRequest | null {
  const url = requestUrl(req)
  if (url === null) return null
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  return createApiRequest({
    method: req.method,
    url,
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress ?? null,
    params: options.params ?? (req.params as Record<string, string>),
    parsedBody: () => parsedBody(req),
    readBody: () => rawBody(req, limit),
  })
}
