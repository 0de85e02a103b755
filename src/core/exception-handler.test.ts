// The one answer to an error (`errorResponse`) and its exception handlers: an `ApiError`'s own
// headers, a view's own handler in place of the API's, and the user the handler is told of.
import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import type { ApiResponse } from './api-response.js'
import { createApi } from './api.js'
import type { AuthenticationScheme } from './authentication-scheme.js'
import { AuthenticationFailed, NotAuthenticated, PermissionDenied, Throttled } from './errors.js'
import { errorResponse, INVALID_HOST_RESPONSE, renderApiError, type ExceptionContext, type ExceptionHandler } from './exception-handler.js'
import { DEFAULT_SETTINGS } from './settings.js'
import type { User } from './user.js'

const bearer: AuthenticationScheme = { authenticate: () => null, authenticateHeader: () => 'Bearer realm="api"' }
const ctx = (authentication: readonly AuthenticationScheme[] = []): ExceptionContext => ({ request: buildRequest(), authentication })
const staff: User = { id: 7, username: 'sam', isAuthenticated: true, isStaff: true, isActive: true }

describe('an ApiError carries headers of its own', () => {
  it('a 403 with WWW-Authenticate (RFC 6750 insufficient_scope) sends it, after the headers the handler adds', () => {
    const challenge = 'Bearer error="insufficient_scope", scope="write"'
    const denied = new PermissionDenied('Insufficient scope.', 'insufficient_scope', { headers: [['WWW-Authenticate', challenge]] })
    expect(renderApiError(denied, ctx([bearer]))).toEqual({ status: 403, headers: [['Content-Type', 'application/json'], ['WWW-Authenticate', challenge]], body: { detail: 'Insufficient scope.' } })
    const throttled = new Throttled(3, undefined, 'throttled', { headers: [['X-RateLimit-Remaining', '0']] })
    expect(renderApiError(throttled, ctx())?.headers).toEqual([['Content-Type', 'application/json'], ['Retry-After', '3'], ['X-RateLimit-Remaining', '0']])
  })

  it("a 401's own WWW-Authenticate replaces the first scheme's challenge and keeps the 401 (even with no scheme to give one)", () => {
    const own = 'Bearer error="invalid_token"'
    const failed = new AuthenticationFailed('Token expired.', 'authentication_failed', { headers: [['www-authenticate', own]] })
    expect(renderApiError(failed, ctx([bearer]))?.headers).toEqual([['Content-Type', 'application/json'], ['www-authenticate', own]])
    expect(renderApiError(failed, ctx())?.status).toBe(401)
    // Without headers of its own: the scheme's challenge, or a 403 when there is none (DRF).
    expect(renderApiError(new NotAuthenticated(), ctx([bearer]))?.headers).toEqual([['Content-Type', 'application/json'], ['WWW-Authenticate', 'Bearer realm="api"']])
    expect(renderApiError(new NotAuthenticated(), ctx())?.status).toBe(403)
  })

  it('the headers are copied when the error is made: a caller changing its array later changes nothing', () => {
    const headers: [string, string][] = [['X-A', '1']]
    const error = new PermissionDenied(undefined, undefined, { headers })
    headers.push(['X-B', '2'])
    expect(error.headers).toEqual([['X-A', '1']])
    expect(new PermissionDenied().headers).toEqual([])
  })
})

describe('errorResponse: the one answer to an error', () => {
  it('an unowned error is a 500 without its text, logged once; a handler that throws is logged and answered 500', () => {
    const logged: unknown[] = []
    const settings = { ...DEFAULT_SETTINGS, logError: (error: unknown) => void logged.push(error) }
    const bug = new Error('password=hunter2')
    const response = errorResponse(bug, { request: buildRequest(), settings })
    expect(response).toEqual({ status: 500, headers: [['Content-Type', 'application/json']], body: { detail: 'A server error occurred.' } })
    expect(JSON.stringify(response)).not.toContain('hunter2')
    expect(logged).toEqual([bug])
    const broken: ExceptionHandler = () => {
      throw new Error('handler bug')
    }
    logged.length = 0
    expect(errorResponse(new PermissionDenied(), { request: buildRequest(), settings: { ...settings, exceptionHandler: broken } }).status).toBe(500)
    expect(logged).toHaveLength(1)
  })

  it('no request (an adapter could not form the URL) is 400 Invalid Host header.; vary is merged into Vary', () => {
    expect(errorResponse(new Error('x'), { request: null, settings: DEFAULT_SETTINGS })).toBe(INVALID_HOST_RESPONSE)
    const response = errorResponse(new PermissionDenied(), { request: buildRequest(), settings: DEFAULT_SETTINGS, vary: ['Cookie'] })
    expect(response.headers).toContainEqual(['Vary', 'Cookie'])
  })
})

describe("a view's own exception handler (DRF's get_exception_handler)", () => {
  const seen: (User | undefined)[] = []
  const redirecting: ExceptionHandler = (error, context) => {
    seen.push(context.user)
    if (error instanceof NotAuthenticated || (error instanceof PermissionDenied && context.user?.isAuthenticated !== true)) {
      return { status: 302, headers: [['Location', '/login/']], body: undefined }
    }
    return renderApiError(error, context)
  }
  const deny = { hasPermission: () => false }
  const user = (found: User | null): AuthenticationScheme => ({ authenticate: () => (found === null ? null : { user: found, auth: null }) })

  it('replaces the API handler on that view only, and is told the user once authentication finished', async () => {
    const api = createApi({ permissions: [deny] })
    const own = api.view({ name: 'own', authentication: [user(null)], exceptionHandler: redirecting, handlers: { GET: async () => ({ status: 200, headers: [], body: {} }) } })
    const plain = api.view({ name: 'plain', authentication: [user(null)], handlers: { GET: async () => ({ status: 200, headers: [], body: {} }) } })
    seen.length = 0
    const anonymous = (await own.handle(buildRequest({ headers: { accept: 'application/json' } }))) as ApiResponse
    expect(anonymous.status).toBe(302)
    expect(seen).toEqual([expect.objectContaining({ isAuthenticated: false })])
    expect(((await plain.handle(buildRequest({ headers: { accept: 'application/json' } }))) as ApiResponse).status).toBe(403)
    const signedIn = api.view({ name: 'staff', authentication: [user(staff)], exceptionHandler: redirecting, handlers: { GET: async () => ({ status: 200, headers: [], body: {} }) } })
    seen.length = 0
    const refused = (await signedIn.handle(buildRequest({ headers: { accept: 'application/json' } }))) as ApiResponse
    expect(refused.status).toBe(403)
    expect(seen).toEqual([staff])
  })

  it('on `api.policies()` too; a scheme that fails leaves the user unknown', async () => {
    const failing: AuthenticationScheme = {
      authenticate: () => {
        throw new AuthenticationFailed()
      },
    }
    const routePolicies = createApi().policies({ authentication: [failing], exceptionHandler: redirecting })
    seen.length = 0
    const result = await routePolicies.run(buildRequest())
    expect(result.response?.status).toBe(403)
    expect(seen).toEqual([undefined])
    const denied = await createApi().policies({ authentication: [user(null)], permissions: [deny], exceptionHandler: redirecting }).run(buildRequest())
    expect(denied.response?.status).toBe(302)
  })
})
