import type { ConfigurationErrorCode } from './error-codes.js'

/** A detail is a message, or a list/dict rendered as-is (DRF's ValidationError shapes). */
export type ErrorDetail = string | readonly unknown[] | Readonly<Record<string, unknown>>

const API_ERROR_BRAND = Symbol.for('gatehouse.ApiError')

/** A response header: name and value. */
export type ErrorHeader = readonly [name: string, value: string]

/** What every `ApiError` takes besides its detail and code (the last argument of each subclass). */
export interface ApiErrorOptions {
  /** The error this one reports (`Error.cause`). */
  readonly cause?: unknown
  /**
   * Headers the answer carries besides those the exception handler adds: an OAuth 2.0
   * resource server's `WWW-Authenticate: Bearer error="insufficient_scope"` on a 403 (RFC 6750).
   * A `WWW-Authenticate` here replaces the challenge of the route's first scheme.
   */
  readonly headers?: readonly ErrorHeader[] | undefined
}

const NO_HEADERS: readonly ErrorHeader[] = Object.freeze([])

/**
 * A request-time error rendered as a response: `{"detail": message}` for a string
 * detail, the list or dict itself otherwise, with the error's `headers`. Each subclass fixes its status.
 */
export abstract class ApiError extends Error {
  abstract readonly status: number
  readonly detail: ErrorDetail
  readonly code: string
  /** Headers the answer carries (`ApiErrorOptions.headers`); none unless given. */
  readonly headers: readonly ErrorHeader[]
  readonly [API_ERROR_BRAND] = true

  constructor(detail: ErrorDetail, code: string, options?: ApiErrorOptions) {
    super(typeof detail === 'string' ? detail : code, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.detail = detail
    this.code = code
    this.headers = options?.headers === undefined ? NO_HEADERS : Object.freeze(options.headers.map(([name, value]) => [name, value] as const))
  }
}

/** True for any gatehouse `ApiError`, even one from a second copy of the package. */
export function isApiError(value: unknown): value is ApiError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[API_ERROR_BRAND] === true
}

export class ValidationError extends ApiError {
  readonly status = 400
  constructor(detail: ErrorDetail = ['Invalid input.'], code = 'invalid', options?: ApiErrorOptions) {
    super(typeof detail === 'string' ? [detail] : detail, code, options)
  }
}
export class ParseError extends ApiError {
  readonly status = 400
  constructor(detail: ErrorDetail = 'Malformed request.', code = 'parse_error', options?: ApiErrorOptions) {
    super(detail, code, options)
  }
}
/**
 * A request the framework refused before gatehouse read it (Express's body parsers, Fastify's
 * own request errors), under the framework's 4xx status: `{"detail": "Malformed request."}`.
 * Your adapter throws or answers it for a request its framework refused (a body its parser
 * could not read, a header it rejects), keeping the framework's status; the shipped adapters
 * answer it through `errorResponse`, as every other error.
 */
export class MalformedRequest extends ApiError {
  readonly status: number
  constructor(status: number) {
    super('Malformed request.', 'parse_error')
    this.status = status
  }
}

export class AuthenticationFailed extends ApiError {
  readonly status = 401
  constructor(detail: ErrorDetail = 'Incorrect authentication credentials.', code = 'authentication_failed', options?: ApiErrorOptions) {
    super(detail, code, options)
  }
}
export class NotAuthenticated extends ApiError {
  readonly status = 401
  constructor(detail: ErrorDetail = 'Authentication credentials were not provided.', code = 'not_authenticated', options?: ApiErrorOptions) {
    super(detail, code, options)
  }
}
export class PermissionDenied extends ApiError {
  readonly status = 403
  constructor(detail: ErrorDetail = 'You do not have permission to perform this action.', code = 'permission_denied', options?: ApiErrorOptions) {
    super(detail, code, options)
  }
}
export class NotFound extends ApiError {
  readonly status = 404
  constructor(detail: ErrorDetail = 'Not found.', code = 'not_found', options?: ApiErrorOptions) {
    super(detail, code, options)
  }
}
export class MethodNotAllowed extends ApiError {
  readonly status = 405
  constructor(method: string, detail?: ErrorDetail, code = 'method_not_allowed', options?: ApiErrorOptions) {
    super(detail ?? `Method "${method}" not allowed.`, code, options)
  }
}
export class NotAcceptable extends ApiError {
  readonly status = 406
  constructor(detail: ErrorDetail = 'Could not satisfy the request Accept header.', code = 'not_acceptable', options?: ApiErrorOptions) {
    super(detail, code, options)
  }
}
export class UnsupportedMediaType extends ApiError {
  readonly status = 415
  constructor(mediaType: string, detail?: ErrorDetail, code = 'unsupported_media_type', options?: ApiErrorOptions) {
    super(detail ?? `Unsupported media type "${mediaType}" in request.`, code, options)
  }
}
/** 413: the request body is over the adapter's `bodyLimit` (Django raises this only once the body is read). */
export class PayloadTooLarge extends ApiError {
  readonly status = 413
  constructor(detail: ErrorDetail = 'Request body is too large.', code = 'payload_too_large', options?: ApiErrorOptions) {
    super(detail, code, options)
  }
}
/** 429. `wait` in seconds (may be fractional); rounded up on the wire as DRF does. */
export class Throttled extends ApiError {
  readonly status = 429
  readonly wait: number | null
  constructor(wait: number | null = null, detail?: string, code = 'throttled', options?: ApiErrorOptions) {
    const seconds = wait === null ? null : Math.ceil(wait)
    const base = detail ?? 'Request was throttled.'
    const suffix =
      seconds === null ? '' : ` Expected available in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`
    super(base + suffix, code, options)
    this.wait = seconds
  }
}
/** 503: a store (database, Redis) is unreachable or too slow. Gatehouse's own addition to DRF's set. */
export class ServiceUnavailable extends ApiError {
  readonly status = 503
  constructor(detail: ErrorDetail = 'Service temporarily unavailable, try again later.', code = 'service_unavailable', options?: ApiErrorOptions) {
    super(detail, code, options)
  }
}

/**
 * A non-API error thrown inside an authentication scheme (spec 5.4's
 * WrappedAttributeError): surfaces as a 500 naming the scheme, never as "anonymous".
 */
export class WrappedSchemeError extends Error {
  override readonly name = 'WrappedSchemeError'
  readonly scheme: string
  constructor(scheme: string, cause: unknown) {
    super(`${scheme}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.scheme = scheme
  }
}

/** A setup-time error: thrown before any request, never rendered. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError'
  /** One of `CONFIGURATION_ERROR_CODES` (docs/errors.md). */
  readonly code: ConfigurationErrorCode
  constructor(code: ConfigurationErrorCode, message: string) {
    super(message)
    this.code = code
  }
}
