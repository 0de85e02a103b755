import type { AuthenticationScheme } from '../authentication/authentication-scheme.js'
import { csrfSecretOf, maskCsrfSecret, newCsrfSecret, resolveCsrfOptions } from '../authentication/csrf.js'
import type { ApiRequest } from '../core/api-request.js'
import { jsonResponse, withHeaders, type ApiResponse } from '../core/api-response.js'
import { patchVary } from '../core/response-middleware.js'
import type { RequestContext, ViewOptions } from '../core/view.js'
import { AllowAny } from '../permissions/allow-any.js'
import { csrfCookieHeader, resolveSessionCookies, type SessionCookieOptions } from './session-cookies.js'

/** Options for `csrfView`. */
export interface CsrfViewOptions extends SessionCookieOptions {
  /** @default 'Csrf' */
  readonly name?: string
  /** @default the API's global schemes */
  readonly authentication?: readonly AuthenticationScheme[]
}

/**
 * `GET`: sets the `csrftoken` cookie (a 32-character secret, kept when the request
 * already has a valid one) and answers `200 {"csrfToken": "<64-character masked token>"}`.
 * A script sends either value back in `X-CSRFToken` on unsafe requests of a session.
 * Allows anyone.
 *
 * @example
 * route('/api/auth/csrf/', api.view(csrfView()))
 */
export function csrfView(options: CsrfViewOptions = {}): ViewOptions {
  const cookies = resolveSessionCookies(options)
  const get = async (ctx: RequestContext): Promise<ApiResponse> => {
    const req = ctx.request
    const secret = csrfSecretOf(req.cookie(cookies.csrfCookieName)) ?? newCsrfSecret()
    // The masked form changes on every call (BREACH); the cookie keeps the plain secret.
    return jsonResponse(200, { csrfToken: maskCsrfSecret(secret) }, [csrfCookieHeader(secret, req, cookies)])
  }
  // Django's ensure_csrf_cookie: every answer of the view sets the cookie (a 405, a 401, a 404
  // for ?format=), varying on Cookie; the GET answer already carries it.
  const finish = (req: ApiRequest, response: ApiResponse): ApiResponse => {
    const name = `${cookies.csrfCookieName}=`
    if (response.headers.some(([header, value]) => header.toLowerCase() === 'set-cookie' && value.startsWith(name))) return patchVary(response, ['Cookie'])
    const secret = csrfSecretOf(req.cookie(cookies.csrfCookieName)) ?? newCsrfSecret()
    return patchVary(withHeaders(response, [csrfCookieHeader(secret, req, cookies)]), ['Cookie'])
  }
  return {
    name: options.name ?? 'Csrf',
    finish,
    handlers: {
      GET: Object.assign(get, {
        openApi: {
          description: `Sets the \`${cookies.csrfCookieName}\` cookie; send \`csrfToken\` (or the cookie's value) in the \`${resolveCsrfOptions(cookies.csrf).headerName}\` header of unsafe requests.`,
          response: { type: 'object', required: ['csrfToken'], properties: { csrfToken: { type: 'string' } } },
        },
      }),
    },
    permissions: [new AllowAny()],
    ...(options.authentication === undefined ? {} : { authentication: options.authentication }),
  }
}
