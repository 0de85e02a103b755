import type { Paginator } from './paginator.js'
import type { JsonObject, OpenApiParameter } from './openapi-shapes.js'

// The JSON shapes live in openapi-shapes.ts, below the paginator (which returns them); the
// descriptions of an operation, which name a paginator, live here above it.
export type { JsonObject, JsonValue, OpenApiPaginatedResponse, OpenApiParameter, OpenApiSecurityScheme } from './openapi-shapes.js'

/** A list operation: the view paginates a collection of items. */
export interface OpenApiListDescription {
  /** The JSON Schema of one item. @default `{}` (any value) */
  readonly item?: JsonObject
  /**
   * The paginator the handler uses. `undefined`: the view's `pagination` setting (what
   * `listHandler` uses); `null`: an unpaginated array.
   */
  readonly paginator?: Paginator | null
}

/**
 * What a handler says about its operation. `listHandler` sets `list`; any handler can carry
 * one (`describeHandler(handler, { … })`). Everything is optional.
 */
export interface OperationDescription {
  readonly summary?: string
  readonly description?: string
  readonly tags?: readonly string[]
  /** A paginated (or plain) list of items. */
  readonly list?: OpenApiListDescription
  /** The success status. @default 200 */
  readonly status?: number
  /** The success body's JSON Schema (ignored for a list). @default `{}` */
  readonly response?: JsonObject
  /** The request body's JSON Schema, read as JSON, form or multipart data. */
  readonly requestBody?: JsonObject
  /**
   * Extra Parameter Objects (query parameters the handler reads, such as a filter). A path
   * parameter listed here replaces the route's default description of it (`{ type: 'string' }`).
   */
  readonly parameters?: readonly OpenApiParameter[]
  /**
   * Error statuses the handler itself answers beyond what its view's policies, paginator and
   * body imply (a login view's `429` from a failed-login throttle).
   */
  readonly errors?: readonly number[]
}
