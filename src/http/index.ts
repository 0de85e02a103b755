// gatehouse/http: the request and response plumbing under the adapters, for writing an adapter of
// your own (Koa, a serverless runtime), building an `ApiRequest` in a test, or reading a request
// exactly as DRF and Python do. An app on the four shipped adapters does not need it.
export { createApiRequest, parseCookies } from '../core/request/request-factory.js'
export { parseBody, DEFAULT_PARSED_MEDIA_TYPES } from '../core/request/body-parser.js'
export { serializeBody } from '../core/api-response.js'
export { errorResponse, INVALID_HOST_RESPONSE } from '../core/exception-handler.js'
export type { PoliciesResult } from '../core/policies.js'
export { matchRoutes } from '../core/route.js'
export { parsePythonInt, queryParam } from '../pagination/query-params.js'
export { requestUrlOf } from '../core/request/request-url.js'
export { wireResponse, WRITE_FAILED_RESPONSE } from '../core/sendable-response.js'
// HTML and query helpers, for a paginator or list handler of your own: the page controls'
// templates, the browsable page's answer with controls, and DRF's query-string edits.
export { numbersTemplate, previousNextTemplate, escapeHtml } from '../core/html/control-templates.js'
export type { ControlTemplate, HtmlContext } from '../pagination/paginator.js'
export { formatResponse } from '../core/format-response.js'
export { replaceQueryParam, removeQueryParam, parsePositiveInt } from '../pagination/query-params.js'
