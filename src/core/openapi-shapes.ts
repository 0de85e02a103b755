/**
 * The JSON shapes through which schemes, paginators, permissions and handlers describe
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
