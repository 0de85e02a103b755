import type { JsonObject, OpenApiParameter } from '../core/openapi-types.js'

/** DRF's example collection URL in its paginated response schemas. */
const EXAMPLE_URL = 'http://api.example.org/accounts/'

/** A query parameter as DRF's `get_schema_operation_parameters` writes one: optional, with a description. */
export function queryParameter(name: string, description: string, schema: JsonObject): OpenApiParameter {
  return { name, required: false, in: 'query', description, schema }
}

/**
 * DRF's page-size parameter (`page_size_query_description`): a positive integer, with the
 * `maximum` it is clamped to when there is one.
 */
export function pageSizeParameter(name: string, max: number | null): OpenApiParameter {
  return queryParameter(name, 'Number of results to return per page.', { type: 'integer', minimum: 1, ...(max === null ? {} : { maximum: max }) })
}

/** A nullable absolute link with DRF's example (`?page=4`). */
function link(query: string): JsonObject {
  return { type: ['string', 'null'], format: 'uri', example: `${EXAMPLE_URL}?${query}` }
}

/** How the envelope's `count` is written. */
export type CountShape = 'integer' | 'nullable' | 'absent'

/**
 * DRF's paginated response schema: `{count, next, previous, results}` (`count` nullable under
 * `count: 'none'`, absent for cursor pagination), `next`/`previous` nullable URIs with DRF's
 * examples, `results` an array of `item`.
 */
export function envelopeSchema(item: JsonObject, count: CountShape, nextQuery: string, previousQuery: string): JsonObject {
  const properties: Record<string, JsonObject> = {}
  if (count !== 'absent') properties['count'] = { type: count === 'integer' ? 'integer' : ['integer', 'null'], example: 123 }
  properties['next'] = link(nextQuery)
  properties['previous'] = link(previousQuery)
  properties['results'] = { type: 'array', items: item }
  // `next` and `previous` are always sent (null at the ends).
  return { type: 'object', required: count === 'absent' ? ['next', 'previous', 'results'] : ['count', 'next', 'previous', 'results'], properties }
}
