// drf-gatehouse/http: the public adapter kit, the request and response plumbing the four
// shipped adapters are built from (they import nothing else of the package but its root entry),
// for writing an adapter of your own (Koa, a serverless runtime), building an `ApiRequest` in a
// test, or reading a request exactly as DRF and Python do. An app on the four shipped adapters
// does not need it.
//
// Reading a request: the URL by one rule, the `ApiRequest`, the body with DRF's parsers.
export { createApiRequest, parseCookies } from '../core/request/request-factory.js'
export { requestUrlOf } from '../core/request/request-url.js'
export { targetPath, routingPath } from '../core/request/url-decoding.js'
export { parseBody, DEFAULT_PARSED_MEDIA_TYPES } from '../core/request/body-parser.js'
export { readBody } from './node-body.js'
export { MalformedRequest } from '../core/errors.js'
// Running a route: its policies, its views' routes, a value that may be a promise.
export { resolvePolicies, type PoliciesResult } from '../core/policies.js'
export { matchRoutes, routeParamsMatch } from '../core/route.js'
export { isPromise } from '../core/maybe-promise.js'
// DRF's 405 on an app's own routes: the framework's routes by path, and the answer.
export { OwnRouteTable } from '../openapi/own-route-table.js'
export { answerOtherMethod } from '../core/own-route-methods.js'
// Answering: errors in DRF's shape, the bytes to send, node:http's writer.
export { errorResponse, INVALID_HOST_RESPONSE } from '../core/exception-handler.js'
export { serializeBody } from '../core/api-response.js'
export { wireResponse, WRITE_FAILED_RESPONSE } from '../core/sendable-response.js'
export { writeNodeResponse } from './node-reply.js'
// OpenAPI: marking what a framework route stands for, reading a route table, writing into another tool's document.
export { markRoute, describedRoutes, type OpenApiRouteOptions } from '../openapi/policy-route.js'
export { writeOpenApi } from '../openapi/write-openapi.js'
// HTML and query helpers, for a paginator or list handler of your own: the page controls'
// templates, the browsable page's answer with controls, and DRF's query-string edits.
export { numbersTemplate, previousNextTemplate, escapeHtml } from '../core/html/control-templates.js'
export type { ControlTemplate, HtmlContext } from '../pagination/paginator.js'
export { formatResponse } from '../core/format-response.js'
export { parsePythonInt, queryParam, replaceQueryParam, removeQueryParam, parsePositiveInt } from '../pagination/query-params.js'
