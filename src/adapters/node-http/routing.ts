// DRF's URL conf rules on node:http, which has no router of its own: the path is matched as the
// client sent it, percent-decoded, case-sensitively, the trailing slash significant.
import type { IncomingMessage } from 'node:http'
import type { ApiResponse } from '../../index.js'
import { INVALID_HOST_RESPONSE, targetPath } from '../../http/index.js'
import { NOT_FOUND } from './errors.js'
import { requestUrl, type NodeHttpOptions } from './request.js'

/**
 * The path a route is matched against: the request target's path as sent (a URL object would
 * resolve `/./` and `/../`, which Django routes as they are), or an absolute-form target's path;
 * `null` when the Host header cannot form that URL.
 */
export function routedPath(req: IncomingMessage, options: NodeHttpOptions): string | null {
  const target = req.url ?? '/'
  if (target.startsWith('/')) return targetPath(target)
  return requestUrl(req, options)?.pathname ?? null
}

/** No route: DRF's 404, or the 400 of a Host that cannot form a URL (as a view would answer first). */
export function routeMiss(req: IncomingMessage, options: NodeHttpOptions): ApiResponse {
  return requestUrl(req, options) === null ? INVALID_HOST_RESPONSE : NOT_FOUND
}
