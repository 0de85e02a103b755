// Errors answered in DRF's shape on Express: its error middleware (body-parser failures as DRF
// answers them) and DRF's 404.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express'
import { DEFAULT_SETTINGS, jsonResponse, ParseError, PayloadTooLarge, type Api, type ApiError, type Settings } from '../../index.js'
import { errorResponse, MalformedRequest, parseBody } from '../../http/index.js'
import { answerOwnRouteMethod, ownRouteMethods } from './own-route-methods.js'
import { sendApiResponse } from './reply.js'
import { toApiRequest } from './request.js'

/** An error from Express's body parsers (`http-errors` with a `type`). */
export interface BodyParserError {
  readonly type: string
  readonly status: number
  readonly body?: unknown
}

export function isBodyParserError(error: unknown): error is BodyParserError {
  if (typeof error !== 'object' || error === null) return false
  const { type, status } = error as { type?: unknown; status?: unknown }
  return typeof type === 'string' && type.startsWith('entity.') && typeof status === 'number' && status >= 400 && status < 500
}

/** The `ApiError` DRF raises for a body-parser failure: re-parsed by the core for DRF's exact JSON message. */
async function bodyParserError(req: Request, error: BodyParserError): Promise<ApiError> {
  if (error.type === 'entity.too.large') return new PayloadTooLarge()
  if (error.type === 'entity.parse.failed' && typeof error.body === 'string') {
    try {
      await parseBody(req.get('content-type') ?? null, new TextEncoder().encode(error.body))
    } catch (parseError) {
      if (parseError instanceof ParseError) return parseError
    }
  }
  return new MalformedRequest(error.status)
}

/** Answers a body parser's failure as DRF answers the body (`400 {"detail": "JSON parse error - …"}`, `413`…). */
export function answerBodyParserError(req: Request, res: Response, next: NextFunction, error: BodyParserError, settings: Settings): void {
  const scope = req.gatehouse ?? { request: toApiRequest(req), settings }
  // A request whose URL could not be formed still gets the refusal itself: Express read the body first.
  bodyParserError(req, error).then((refusal) => sendApiResponse(res, scope.request === null ? jsonResponse(refusal.status, { detail: refusal.detail }) : errorResponse(refusal, scope)), next)
}

/**
 * Middleware answering in DRF's shape, for `app.use(errorHandler(api))` after your routes:
 * every error (an error of a guarded request through the route's exception handler, with its
 * `Vary`; a failure of Express's body parsers, malformed JSON from `express.json()` or a body
 * over its limit, as DRF answers it; any other error as a logged
 * `500 {"detail": "A server error occurred."}`, through `api`'s settings when given:
 * `exceptionHandler`, `logError`), and a method the app's routes do not take on the path of
 * a route guarded by `policies()`: DRF's `405 {"detail": "Method \"PATCH\" not allowed."}`
 * with `Allow` listing the methods every router of the app takes for that path (after that
 * route's policies, as DRF; OPTIONS gets DRF's metadata). Put it on the app, not only on a
 * router: a body parser's failure on the app never reaches a router. It returns two
 * middleware (the 405, then the error middleware) for one `app.use()`, which takes an array.
 *
 * @example
 * app.use('/api', router)
 * app.use(errorHandler(api))
 */
export function errorHandler(api?: Api): [ownRouteMethods: RequestHandler, errors: ErrorRequestHandler] {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  const errors: ErrorRequestHandler = (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(error)
    if (isBodyParserError(error)) return answerBodyParserError(req, res, next, error, settings)
    sendApiResponse(res, errorResponse(error, req.gatehouse ?? { request: toApiRequest(req), settings }))
  }
  return [ownRouteMethods, errors]
}

const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })

/**
 * DRF's `404 {"detail": "Not found."}` as Express middleware: `app.use(notFound)` after your
 * routes and before `errorHandler`, for the requests no route answered (a method the routes
 * of a path guarded by `policies()` do not take is DRF's 405, as `errorHandler` answers it).
 */
export function notFound(req: Request, res: Response, next: NextFunction): void {
  if (!answerOwnRouteMethod(req, res, next)) sendApiResponse(res, NOT_FOUND)
}
