// Errors answered in DRF's shape on Fastify: the error handler, DRF's 404, Fastify's own
// request errors, and the `drfErrors` plugin that gives a whole app DRF's error shape.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { DEFAULT_SETTINGS, isApiError, jsonResponse, PayloadTooLarge, UnsupportedMediaType, type Api, type ApiError } from '../../index.js'
import { errorResponse, MalformedRequest } from '../../http/index.js'
import { deferBody, hasDeferredBody, judgeDeferredBodyFirst, keepOtherBodies, settleDeferredBody } from './deferred-bodies.js'
import { ownRouteMethods } from './own-route-methods.js'
import { sendApiResponse } from './reply.js'
import { apiRequestOf } from './request.js'

/** DRF's 404 for a path no route matches: `404 {"detail": "Not found."}`. */
export const NOT_FOUND = jsonResponse(404, { detail: 'Not found.' })
const MALFORMED = jsonResponse(400, { detail: 'Malformed request.' })

/**
 * A Fastify not-found handler answering DRF's `404 {"detail": "Not found."}`:
 * `app.setNotFoundHandler(notFound)` for paths outside the prefix `mountRoutes` answers below.
 */
export function notFound(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendApiResponse(reply, NOT_FOUND)
}

export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  sendApiResponse(reply, error.code === 'FST_ERR_BAD_URL' ? NOT_FOUND : MALFORMED)
}

/** A Fastify error handler: what `errorHandler()` returns. */
export type FastifyErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>

/** The `ApiError` DRF raises for one of Fastify's own request errors (bad media type, body too large…), or `null`. */
function frameworkError(error: FastifyError, request: FastifyRequest): ApiError | null {
  if (isApiError(error)) return null
  const status = error.statusCode
  if (typeof status !== 'number' || status < 400 || status >= 500) return null
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new UnsupportedMediaType(request.headers['content-type'] ?? '')
  return status === 413 ? new PayloadTooLarge() : new MalformedRequest(status)
}

/**
 * Fastify error handler answering every error in DRF's shape: an error of a guarded request
 * through the route's exception handler (with its `Vary`), Fastify's own request errors (an
 * unsupported media type as DRF's 415, a body over the limit as 413, other 4xx as
 * `400 {"detail": "Malformed request."}`), and any other error as a logged
 * `500 {"detail": "A server error occurred."}` (through `api`'s settings when given).
 * A malformed JSON body is DRF's exact `400 {"detail": "JSON parse error - …"}` on routes
 * where a parser kept it for DRF's rules: the `gatehouse` plugin's and, app-wide, those of
 * an app that registered `drfErrors` (which sets this handler too).
 *
 * @example
 * app.setErrorHandler(errorHandler(api))
 */
export function errorHandler(api?: Api): FastifyErrorHandler {
  const settings = api?.settings ?? DEFAULT_SETTINGS
  return async (fastifyError, request, reply) => {
    let error: unknown = fastifyError
    // A schema refused a body no parser could read: DRF's parse error is the answer, as DRF parses first.
    if (hasDeferredBody(request) && !isApiError(error)) await settleDeferredBody(request).catch((parseError: unknown) => (error = parseError))
    const context = request.gatehouse
    if (context !== undefined && context !== null) return sendApiResponse(reply, errorResponse(error, context))
    const scope = { request: apiRequestOf(request), settings }
    const refusal = frameworkError(error as FastifyError, request)
    if (refusal === null) return sendApiResponse(reply, errorResponse(error, scope))
    // A request whose URL could not be formed still gets the refusal itself: Fastify read the body first.
    return sendApiResponse(reply, scope.request === null ? jsonResponse(refusal.status, { detail: refusal.detail }) : errorResponse(refusal, scope))
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Options of the `drfErrors` plugin. */
export interface DrfErrorsOptions {
  /** Where `errorHandler` takes its settings from (`exceptionHandler`, `logError`). */
  readonly api?: Api
}

/**
 * DRF's error shape for the whole app, the app's own routes included: sets
 * `errorHandler(api)` on the instance it is registered on, and makes a malformed JSON body
 * DRF's exact `400 {"detail": "JSON parse error - …"}` instead of Fastify's. Well-formed JSON
 * is parsed by Fastify's own parser as before (same options, same `request.body`); a body it
 * refuses is judged by DRF's parser once the route's `policies()` passed (a refusal comes
 * first, with its `Vary`), or before the handler of a route without them; a body refused only
 * for `__proto__` or `constructor` (Fastify's `onProtoPoisoning` options) keeps Fastify's
 * answer. A method the routes of a path do not take, where one of them is guarded by
 * `policies()`, is DRF's `405 {"detail": "Method \"PATCH\" not allowed."}` with `Allow`
 * (every method the app's routes take there), after that route's policies, instead of
 * Fastify's 404. Not encapsulated (like a `fastify-plugin`): register it on the root instance
 * before your routes and before a JSON parser of your own, which it would replace.
 *
 * @example
 * await app.register(drfErrors, { api })
 */
export const drfErrors: FastifyPluginAsync<DrfErrorsOptions> = async (app, options) => {
  const config = app.initialConfig
  const parseJson = app.getDefaultJsonParser(config.onProtoPoisoning ?? 'error', config.onConstructorPoisoning ?? 'error') as (
    request: FastifyRequest,
    body: string,
    done: (error: FastifyError | null, value?: unknown) => void,
  ) => void
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const text = body.toString('utf8')
    parseJson(request, text, (error, value) => {
      // JSON that JSON.parse reads was refused for `__proto__`/`constructor` (the app's poisoning options): Fastify's answer stands.
      if (error?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' && !isJson(text)) done(null, deferBody(body))
      else done(error, value)
    })
  })
  keepOtherBodies(app)
  app.addHook('onRoute', judgeDeferredBodyFirst)
  ownRouteMethods(app)
  app.setErrorHandler(errorHandler(options.api))
}
// What `fastify-plugin` sets: the plugin changes the instance it is registered on, not a child scope.
Object.assign(drfErrors, { [Symbol.for('skip-override')]: true })
