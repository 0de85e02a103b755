/** What the core returns; adapters write it to the wire. */
export interface ApiResponse {
  readonly status: number
  /** Header pairs; a name may repeat (`Set-Cookie`). */
  readonly headers: readonly (readonly [name: string, value: string])[]
  /** JSON-serialisable value, a string (already rendered, e.g. HTML), or `undefined` for no body. */
  readonly body: unknown
  /**
   * Markup shown above the response when it is rendered as an HTML page (a paginator's page
   * controls); ignored in JSON. Set it with `formatResponse`.
   */
  readonly pageControls?: string
  /**
   * Markup of the list's filter panel on the HTML page (DRF's "Filters": the filter set's
   * form, the search box, the ordering links); ignored in JSON. `listHandler` and
   * `paginatedList` set it.
   */
  readonly filterForm?: string
}

/** The header every JSON answer carries: one frozen pair, shared. */
const JSON_CONTENT_TYPE: readonly [string, string] = Object.freeze(['Content-Type', 'application/json'] as const)

/** A JSON response, DRF style: compact, `Content-Type: application/json`. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: readonly (readonly [string, string])[] = [],
): ApiResponse {
  return { status, headers: headers.length === 0 ? [JSON_CONTENT_TYPE] : [JSON_CONTENT_TYPE, ...headers], body }
}

/** A response with no body (204 and the like). */
export function emptyResponse(status: number, headers: readonly (readonly [string, string])[] = []): ApiResponse {
  return { status, headers, body: undefined }
}

/** Serialises a response body to the bytes an adapter writes. */
export function serializeBody(response: ApiResponse): string | undefined {
  if (response.body === undefined) return undefined
  if (typeof response.body === 'string') return response.body
  return JSON.stringify(response.body)
}

/** Returns a copy of `response` with extra headers appended. */
export function withHeaders(response: ApiResponse, headers: readonly (readonly [string, string])[]): ApiResponse {
  return { ...response, headers: [...response.headers, ...headers] }
}
