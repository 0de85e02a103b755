import type { ApiResponse } from './api-response.js'
import type { RequestContext } from './pipeline.js'

/**
 * A handler's answer with page controls for the HTML page: when the client negotiated
 * `text/html`, the view shows `response` on its HTML page (as it does every JSON answer)
 * with `controls` above it; for JSON, `response` as is.
 */
export function formatResponse(ctx: RequestContext, response: ApiResponse, controls: string | null = null): ApiResponse {
  if (ctx.format !== 'html' || controls === null || controls === '') return response
  return { ...response, pageControls: controls }
}
