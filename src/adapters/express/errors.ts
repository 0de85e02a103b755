// Errors answered in DRF's shape on Express: its error middleware (body-parser failures as DRF
// answers them) and DRF's 404.
import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express'
import { DEFAULT_SETTINGS, jsonResponse, ParseError, PayloadTooLarge, type Api, type ApiError } from '../../index.js'
import { errorResponse, MalformedRequest, parseBody } from '../../http/index.js'
import { sendApiResponse } from './reply.js'
import { toApiRequest } from './request.js'

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
    const scope = req.gatehouse ?? { request: toApiRequest(req), settings }
    if (isBodyParserError(error)) {
      // A request whose URL could not be formed still gets the refusal itself: Express read the body first.
      bodyParserError(req, error).then((refusal) => sendApiResponse(res, scope.request === null ? jsonResponse(refusal.status, { detail: refusal.detail }) : errorResponse(refusal, scope)), next)
      return
    }
    sendApiResponse(res, errorResponse(error, scope))
  }
}

const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })

/**
 * DRF's `404 {"detail": "Not found."}` as Express middleware: `app.use(notFound)` after your
 * routes and before `errorHandler`, for the requests no route answered.
 */
export function notFound(_req: Request, res: Response): void {
  sendApiResponse(res, NOT_FOUND)
}
