// DRF's answer to a method an app's own route (guarded by `policies()`) does not have: the
// route's policies first, then `405 {"detail": "Method \"PATCH\" not allowed."}` with `Allow`,
// as DRF's `APIView` answers a method its view does not implement.
import { jsonResponse, type ApiResponse } from './api-response.js'
import type { ApiRequest } from './api-request.js'
import { MethodNotAllowed } from './errors.js'
import { errorResponse, INVALID_HOST_RESPONSE } from './exception-handler.js'
import { thenMaybe, type MaybePromise } from './maybe-promise.js'
import type { RequestContext } from './pipeline.js'
import type { Policies, PoliciesResult } from './policies.js'
import { DEFAULT_PARSED_MEDIA_TYPES } from './request/body-parser.js'
import { finishResponse } from './response-finishing.js'
import { HANDLER_METHODS } from './view.js'

/**
 * DRF's `Allow` for a path whose routes answer `methods`: the methods in DRF's order (GET,
 * POST, PUT, PATCH, DELETE, then any other the app registered), HEAD when GET is there (Django
 * answers HEAD with GET), and OPTIONS (DRF's `APIView` answers it).
 */
function allowOf(methods: Iterable<string>): string {
  const given = new Set<string>()
  for (const method of methods) given.add(method.toUpperCase())
  const allowed: string[] = HANDLER_METHODS.filter((m) => given.has(m))
  for (const method of [...given].sort()) if (!allowed.includes(method) && method !== 'HEAD' && method !== 'OPTIONS') allowed.push(method)
  if (given.has('GET') || given.has('HEAD')) allowed.push('HEAD')
  allowed.push('OPTIONS')
  return allowed.join(', ')
}

/**
 * The answer to `req`, whose method no route of its path takes, when a route of that path is
 * guarded by `routePolicies` and answer `methods`: the policies run first (an anonymous PATCH to an authenticated
 * route is 401, as in DRF, where the 405 is raised after `initial()`), then OPTIONS is DRF's
 * metadata (`200 {"name", "description", "renders", "parses"}`) and any other method DRF's
 * `405 {"detail": "Method \"PATCH\" not allowed."}`. Every answer carries `Allow` (DRF's
 * `finalize_response`); a HEAD answer has no body. Never throws.
 */
export function answerOtherMethod(routePolicies: Policies, req: ApiRequest | null, methods: Iterable<string>): MaybePromise<ApiResponse> {
  if (req === null) return INVALID_HOST_RESPONSE
  const allow = allowOf(methods)
  return thenMaybe(routePolicies.run(req), (result: PoliciesResult) => {
    const response = result.response ?? afterPolicies(routePolicies, result.context, req)
    return finishResponse(response, { method: req.method, allow, vary: [] })
  })
}

function afterPolicies(routePolicies: Policies, context: RequestContext, req: ApiRequest): ApiResponse {
  if (req.method !== 'OPTIONS') return errorResponse(new MethodNotAllowed(req.method), context)
  const metadata = jsonResponse(200, { name: routePolicies.info.name, description: '', renders: ['application/json'], parses: DEFAULT_PARSED_MEDIA_TYPES })
  return context.vary.length === 0 ? metadata : { ...metadata, headers: [...metadata.headers, ['Vary', context.vary.join(', ')]] }
}
