import type { ApiRequest } from '../core/api-request.js'
import type { ApiResponse } from '../core/api-response.js'

/**
 * A pagination style. Placeholder contract: the pagination work refines it
 * (page sources, cursor seeks, HTML controls).
 */
export interface Paginator<T = unknown> {
  /** Returns the page state, or `null` when pagination is off for this request. */
  paginate(source: unknown, req: ApiRequest): Promise<unknown>
  /** Builds the response for serialized page items. */
  render(page: unknown, data: readonly T[]): ApiResponse
}
