import type { JsonObject } from '../core/openapi-types.js'

/** The request body of the token and login views, for OpenAPI documents. */
export const CREDENTIALS_SCHEMA: JsonObject = {
  type: 'object',
  required: ['username', 'password'],
  properties: { username: { type: 'string' }, password: { type: 'string', format: 'password' } },
}
