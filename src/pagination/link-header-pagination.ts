import type { ApiResponse } from '../core/api-response.js'
import { jsonResponse } from '../core/api-response.js'
import type { JsonObject, OpenApiPaginatedResponse } from '../core/openapi-types.js'
import { PageNumberPagination, type PageNumberState } from './page-number-pagination.js'
import type { Page } from './paginator.js'

/**
 * Page numbers underneath; the body is the plain list, the links go in an RFC 8288
 * `Link` header (`<url>; rel="next", <url>; rel="prev"`, no header when neither)
 * and the total in `X-Total-Count` (the well-known DRF recipe, built in; absent under
 * `count: 'none'`).
 */
export class LinkHeaderPagination extends PageNumberPagination {
  override paginatedResponse(page: Page<unknown, PageNumberState>, data: readonly unknown[]): ApiResponse {
    const links: string[] = []
    if (page.next !== null) links.push(`<${page.next}>; rel="next"`)
    if (page.previous !== null) links.push(`<${page.previous}>; rel="prev"`)
    // No total under `count: 'none'`: the header is left out rather than claiming 0.
    const headers: [string, string][] = page.count === null ? [] : [['X-Total-Count', String(page.count)]]
    if (links.length > 0) headers.push(['Link', links.join(', ')])
    return jsonResponse(200, data, headers)
  }

  /** The plain array; the links and the total in headers. */
  override openApiResponse(item: JsonObject): OpenApiPaginatedResponse {
    const headers: Record<string, JsonObject> = {
      Link: { description: 'RFC 8288 links to the next and previous pages (`rel="next"`, `rel="prev"`); absent when there is neither.', schema: { type: 'string' } },
    }
    if (this.countStrategy !== 'none') headers['X-Total-Count'] = { description: 'The number of items in the whole collection.', required: true, schema: { type: 'integer' } }
    return { schema: { type: 'array', items: item }, headers }
  }
}
