import type { Paginator } from './paginator.js'

/**
 * The shapes through which schemes, paginators, permissions and handlers describe
 * themselves to an OpenAPI 3.1 document (`openApiDocument`). Every method that returns
 * them is optional: a piece without one is left out of the document (and noted), never
 * guessed at.
 */

/** A JSON value as it appears in an OpenAPI document. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue }

/** A JSON object: a JSON Schema, an OpenAPI Security Scheme Object, a Parameter Object, … */
export type JsonObject = { readonly [key: string]: JsonValue }

/** One entry of a `components.securitySchemes` map: its name and its Security Scheme Object. */
export interface OpenApiSecurityScheme {
  /** The key in `components.securitySchemes` (`basicAuth`, `tokenAuth`, `cookieAuth`, …). */
  readonly name: string
  /** The Security Scheme Object (`{ type: 'http', scheme: 'basic' }`, …). */
  readonly scheme: JsonObject
}

/**
 * An OpenAPI Parameter Object (`{ name, in, required, description, schema }`), such as a
 * paginator's query parameters (DRF's `get_schema_operation_parameters`).
 */
export type OpenApiParameter = JsonObject

/** What a paginated response looks like: its body schema, and any headers it carries. */
export interface OpenApiPaginatedResponse {
  /** The body's JSON Schema (DRF's `get_paginated_response_schema`). */
  readonly schema: JsonObject
  /** Response headers by name (Header Objects): `Link`, `X-Total-Count`, … */
  readonly headers?: Readonly<Record<string, JsonObject>>
  /**
   * The envelope's style, naming its component when the item schema is named
   * (`namedSchema`): `'Page'` makes `ArticlePage`. Absent: the envelope is written inline.
   */
  readonly name?: string
}

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
