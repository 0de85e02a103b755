import type { JsonObject } from '../core/openapi-types.js'

/** The error body every gatehouse error answers with, `{"detail": "…"}`: named so it shadows no language's `Error`. */
export const ERROR_SCHEMA_NAME = 'ErrorDetail'
export const ERROR_SCHEMA: JsonObject = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string' } },
}

/** DRF's validation errors: field name (or `non_field_errors`) → messages. */
export const VALIDATION_ERROR_SCHEMA_NAME = 'ValidationError'
export const VALIDATION_ERROR_SCHEMA: JsonObject = {
  type: 'object',
  description: 'Messages by field name (`non_field_errors` for the body as a whole).',
  additionalProperties: { type: 'array', items: { type: 'string' } },
}

/** The component under `components.responses` describing a method a path does not list. */
export const METHOD_NOT_ALLOWED = 'MethodNotAllowed'

const RETRY_AFTER: JsonObject = { 'Retry-After': { description: 'Seconds until a request may succeed.', schema: { type: 'integer' } } }
const ALLOW: JsonObject = { Allow: { description: 'The methods the path answers.', required: true, schema: { type: 'string' } } }

/** What each error status means on a gatehouse view, and the headers it carries. */
const ERRORS: Readonly<Record<number, { readonly description: string; readonly headers?: JsonObject }>> = {
  400: { description: 'Bad request: a body that does not parse, or a malformed header.' },
  401: {
    description: 'Authentication failed or was required.',
    headers: { 'WWW-Authenticate': { description: "The challenge of the view's first scheme.", required: true, schema: { type: 'string' } } },
  },
  403: { description: 'Permission denied (or authentication failed, when the first scheme has no challenge).' },
  404: { description: 'Not found.' },
  405: { description: 'The path does not answer this method.', headers: ALLOW },
  406: { description: 'No format the view renders is acceptable (the `Accept` header).' },
  415: { description: 'The request body has a media type the view does not parse.' },
  429: { description: 'Request was throttled.', headers: RETRY_AFTER },
}

/** The Response Object of an error `status` whose body is `schema` (a `$ref`), with `description` when given. */
export function errorResponse(status: number, schema: JsonObject, description?: string): JsonObject {
  const known = ERRORS[status]
  return {
    description: description ?? known?.description ?? 'Error.',
    ...(known?.headers === undefined ? {} : { headers: known.headers }),
    content: { 'application/json': { schema } },
  }
}
