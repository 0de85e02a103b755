import express from 'express'
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response, Router } from 'express'
import type { ApiRequest, RequestData } from '../../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../../core/api-response.js'
import type { Api } from '../../core/api.js'
import { answerError, INVALID_HOST_RESPONSE } from '../../core/error-answer.js'
import { ParseError } from '../../core/errors.js'
import { answerHandlerError, resolveGuard, type Guard, type GuardOptions } from '../../core/guard.js'
import type { RequestContext } from '../../core/pipeline.js'
import { patchVary } from '../../core/response-middleware.js'
import { DEFAULT_SETTINGS } from '../../core/settings.js'
import { createApiRequest } from '../../core/request/request-factory.js'
import { routeParamsMatch, type Route } from '../../core/route.js'
import type { User } from '../../core/user.js'
import type { ApiView } from '../../core/view.js'
import { parseBody } from '../../core/request/body-parser.js'
import { writeResponse } from '../node-http/index.js'
import { headerBag, readBody } from '../node-http/node-io.js'

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
  let host = req.get('host')
  const trust = req.app.get('trust proxy fn') as ((address: string | undefined, hop: number) => boolean) | undefined
  if (trust?.(req.socket.remoteAddress, 0) === true) host = firstValue(req.get('x-forwarded-host')) ?? host
  if (host === undefined || host === '') return null
  try {
    const base = new URL(`${req.protocol}://${host}`)
    if (base.pathname !== '/' || base.search !== '' || base.hash !== '' || base.username !== '' || base.password !== '') return null
    const target = req.originalUrl
    // Origin-form is appended, never resolved: `//evil/x` stays a path.
    const absolute = target.startsWith('/') ? null : new URL(target)
    return new URL(`${base.origin}${absolute === null ? target : `${absolute.pathname}${absolute.search}`}`)
  } catch {
    return null
  }
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
    headers: headerBag(req.headers),
    remoteAddress: req.socket.remoteAddress ?? null,
    params: { ...(req.params as Record<string, string>) },
    parsedBody: () => parsedBody(req),
    readBody: () => rawBody(req, limit),
  })
}

/**
 * Sends an `ApiResponse` (a view's answer, `paginatedList`'s page) with Express: each
 * `Set-Cookie` on its own line, bare `application/json` as DRF sends it.
 */
export function sendApiResponse(res: Response, response: ApiResponse): void {
  // An Express response is a node:http one: `res.end`, not `res.send` (send would add
  // `; charset=utf-8` and an ETag).
  writeResponse(res, response)
}

/** Options of `policies(api, options)`: the route's policies and how its body is read. */
export interface PoliciesOptions extends GuardOptions, ExpressOptions {}

const ADAPTER_KEYS: readonly (keyof ExpressOptions)[] = ['bodyLimit']

/**
 * Middleware that runs a route's policies (allowed host, authentication, permissions,
 * throttles) before the app's own handler, and puts the result on `req.user`, `req.auth`
 * and `req.gatehouse`. A refusal answers in DRF's shape (status, `{"detail"}`,
 * `WWW-Authenticate`, `Retry-After`, `Vary`). Errors the app's handler throws go to Express's
 * error chain: install `errorHandler()` after your routes to answer them in DRF's shape.
 *
 * @example
 * router.get('/books/:id', policies(api, { permissions: [new IsAuthenticated()] }), (req, res) => { … })
 */
export function policies(guard: Guard, options?: ExpressOptions): RequestHandler
export function policies(api: Api, options?: PoliciesOptions): RequestHandler
export function policies(source: Api | Guard, options: PoliciesOptions = {}): RequestHandler {
  const guard = resolveGuard(source, options, ADAPTER_KEYS)
  const adapterOptions: ExpressOptions = options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }
  return (req: Request, res: Response, next: NextFunction): void => {
    guard.run(toApiRequest(req, adapterOptions)).then((result) => {
      if (result.response !== null) return sendApiResponse(res, result.response)
      const context = result.context
      req.user = context.user
      req.auth = context.auth
      req.gatehouse = context
      for (const header of context.vary) res.vary(header)
      next()
    }, next)
  }
}

/**
 * The handler context of a request `policies()` let through, for the core's helpers that take
 * one (`paginatedList(requestContext(req), …)`): JSON format, the route's params. Throws when
 * `policies()` did not run on the request (a wiring mistake, a 500 from the error handler).
 */
export function requestContext(req: Request): RequestContext {
  const context = req.gatehouse
  if (context === undefined) throw new Error('gatehouse: requestContext() needs policies() to have run on this request')
  return context
}

/** An error from Express's body parsers (`http-errors` with a `type`). */
interface BodyParserError {
  readonly type: string
  readonly status: number
  readonly body?: unknown
}

function isBodyParserError(error: unknown): error is BodyParserError {
  if (typeof error !== 'object' || error === null) return false
  const { type, status } = error as { type?: unknown; status?: unknown }
  return typeof type === 'string' && type.startsWith('entity.') && typeof status === 'number' && status >= 400 && status < 500
}

/** DRF's answer to a body-parser failure: re-parsed by the core for DRF's exact JSON message. */
async function bodyParserResponse(req: Request, error: BodyParserError): Promise<ApiResponse> {
  if (error.type === 'entity.too.large') return jsonResponse(413, { detail: 'Request body is too large.' })
  if (error.type === 'entity.parse.failed' && typeof error.body === 'string') {
    try {
      await parseBody(req.get('content-type') ?? null, new TextEncoder().encode(error.body))
    } catch (parseError) {
      if (parseError instanceof ParseError) return jsonResponse(400, { detail: parseError.detail })
    }
  }
  return jsonResponse(error.status, { detail: 'Malformed request.' })
}

/**
 * Error middleware answering every error in DRF's shape: an error of a guarded request through
 * the route's exception handler (with its `Vary`), a failure of Express's body parsers
 * (malformed JSON from `express.json()`, a body over its limit) as DRF answers it, and any
 * other error as a logged `500 {"detail": "A server error occurred."}` (through `api`'s
 * settings when given: `exceptionHandler`, `logError`). Install it after your routes.
 *
 * @example
 * app.use(errorHandler(api))
 */
export function errorHandler(api?: Api): ErrorRequestHandler {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(error)
    const context = req.gatehouse
    if (isBodyParserError(error)) {
      bodyParserResponse(req, error).then((response) => sendApiResponse(res, context === undefined || context.vary.length === 0 ? response : patchVary(response, context.vary)), next)
      return
    }
    if (context !== undefined) return sendApiResponse(res, answerHandlerError(error, context))
    const request = toApiRequest(req)
    sendApiResponse(res, request === null ? INVALID_HOST_RESPONSE : answerError(error, request, settings))
  }
}

/** The part of an Express app or router `mountRoutes` uses. */
export type RouteTarget = Pick<Router, 'use'>

/**
 * Mounts DRF-style views: each route answers every method with its view (which answers
 * 405 itself), with Express's `:name` parameters passed into `ApiRequest.params`. The routes
 * sit on a router of their own that matches as DRF's URL conf does, whatever `target`'s
 * options: case-sensitively (`/API/WHOAMI/` is not `/api/whoami/`) and with the trailing
 * slash significant. Requests no route matches go on to `target`'s next handler.
 */
export function mountRoutes(target: RouteTarget, routes: readonly Route[], options: ExpressOptions = {}): void {
  const drfRoutes = express.Router({ caseSensitive: true, strict: true })
  for (const r of routes) {
    const handler = viewHandler(r.view, options)
    // A parameter the route's converter refuses (`{ id: 'int' }` and `/abc/`): no route, as in Django.
    drfRoutes.all(r.path, r.params === undefined ? handler : (req, res, next) => (routeParamsMatch(r, req.params as Record<string, string>) ? handler(req, res, next) : next()))
  }
  target.use(drfRoutes)
}

/** A request handler answering with `view` (which never throws); a malformed host is a 400. */
export function viewHandler(view: ApiView, options: ExpressOptions = {}): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const request = toApiRequest(req, options)
    if (request === null) return sendApiResponse(res, INVALID_HOST_RESPONSE)
    view.handle(request).then((response) => {
      // A body left unread past the limit is not drained: the connection closes instead.
      if (response.status === 413 && !req.complete) res.setHeader('Connection', 'close')
      sendApiResponse(res, response)
    }, next)
  }
}
