import type { ApiRequest } from './api-request.js'
import type { ApiResponse } from './api-response.js'

/**
 * A step that sees every view's finished answer, as Django's response middleware does
 * (`process_response`): the session middleware deleting a session cookie that holds no
 * session is the built-in one (`StaleSessionCookie`). Listed in the `responseMiddleware`
 * setting; run in order, after the view's `Allow` and `Vary` are set.
 */
export interface ResponseMiddleware {
  /**
   * The answer to send for `req`: `response` itself, or a copy with headers added (use
   * `patchVary` for `Vary`). Runs after the policies and the handler, so it may read what
   * the request's schemes learned. Must not throw: it cannot change the answer's status.
   */
  process(req: ApiRequest, response: ApiResponse): ApiResponse
}

/**
 * Django's `patch_vary_headers`: `names` appended to the answer's `Vary`, each once
 * (case-insensitively), after the values already there.
 */
export function patchVary(response: ApiResponse, names: readonly string[]): ApiResponse {
  const values: string[] = []
  const headers: (readonly [string, string])[] = []
  let at = -1
  for (const header of response.headers) {
    if (header[0].toLowerCase() !== 'vary') headers.push(header)
    else {
      if (at === -1) at = headers.length
      values.push(...header[1].split(',').map((v) => v.trim()).filter((v) => v !== ''))
    }
  }
  for (const name of names) if (!values.some((v) => v.toLowerCase() === name.toLowerCase())) values.push(name)
  const vary: readonly [string, string] = ['Vary', values.join(', ')]
  if (at === -1) headers.push(vary)
  else headers.splice(at, 0, vary)
  return { ...response, headers }
}
