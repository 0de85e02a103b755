import { route, type ApiView, type Route } from 'drf-gatehouse'
import type { AuthenticationScheme } from 'drf-gatehouse'
import { RemoteUserAuthentication } from 'drf-gatehouse'
import { TokenAuthentication } from 'drf-gatehouse'
import { JWTStatelessUserAuthentication } from 'drf-gatehouse/jwt'
import { OAuth2Authentication, accessTokenOf } from 'drf-gatehouse/oauth2'
import { jsonResponse, type ApiResponse } from 'drf-gatehouse'
import { AuthenticationFailed } from 'drf-gatehouse'
import type { RequestContext } from 'drf-gatehouse'
import { AllowAny } from 'drf-gatehouse'
import { IsAdminUser } from 'drf-gatehouse'
import { IsAuthenticated } from 'drf-gatehouse'
import type { Permission } from 'drf-gatehouse'
import type { TokenRecord } from 'drf-gatehouse'
import { describeHandler, namedSchema, type JsonObject } from 'drf-gatehouse'
import type { ReferenceRoutesContext } from '../context.js'

/** What every identity route answers, for the OpenAPI document. */
const WHOAMI_SCHEMA: JsonObject = namedSchema('Identity', {
  type: 'object',
  required: ['username', 'authenticated', 'auth'],
  properties: {
    username: { type: ['string', 'null'] },
    authenticated: { type: 'boolean' },
    auth: { type: ['string', 'null'], description: 'The token key when a token authenticated the request; the raw access token when a JWT or an OAuth 2.0 access token did.' },
  },
})

/**
 * The `auth` field: DRF Token's key; for a JWT the raw access token as the request sent it
 * (simplejwt's `request.auth.token`; `str(request.auth)` re-signs the same claims, the same
 * text for the tokens either mints); else `null`.
 */
function authField(ctx: RequestContext): string | null {
  if (ctx.authenticator instanceof TokenAuthentication) {
    const key = (ctx.auth as Partial<TokenRecord> | null)?.key
    return typeof key === 'string' ? key : null
  }
  if (ctx.authenticator instanceof JWTStatelessUserAuthentication) {
    // The scheme accepted `<type> <token>`: two parts split as DRF splits the header.
    return ctx.request.headers.get('authorization')?.split(/[ \t\r\n\v\f]+/).filter((part) => part !== '')[1] ?? null
  }
  // An OAuth 2.0 access token: the raw token, as reference-api.md says.
  if (ctx.authenticator instanceof OAuth2Authentication) return accessTokenOf(ctx.auth)?.token ?? null
  return null
}

/** `{"username", "authenticated", "auth"}`: who the request is, as every identity route answers. */
async function whoamiHandler(ctx: RequestContext): Promise<ApiResponse> {
  const authenticated = ctx.user.isAuthenticated
  return jsonResponse(200, { username: authenticated ? ctx.user.username : null, authenticated, auth: authField(ctx) })
}

/** The identity handler, described for the OpenAPI document. */
export const whoami = describeHandler(whoamiHandler, { response: WHOAMI_SCHEMA })

/** The spec 5.4 example scheme: the user named by `X-Username`; unknown names fail. */
export function xUsernameScheme(ref: ReferenceRoutesContext): AuthenticationScheme<null> {
  return {
    name: 'XUsernameAuthentication',
    async authenticate(req) {
      const username = req.headers.get('x-username')
      if (username === null || username === '') return null
      const user = await ref.users.findByUsername(username)
      if (user === null) throw new AuthenticationFailed('No such user')
      return { user, auth: null }
    },
    // A custom scheme describes itself to the OpenAPI document as the built-ins do.
    openApiSecurity: () => [{ name: 'xUsernameAuth', scheme: { type: 'apiKey', in: 'header', name: 'X-Username' } }],
  }
}

/** The Identity routes of reference-api.md. */
export function identityRoutes(ref: ReferenceRoutesContext): Route[] {
  const routes: Route[] = []
  const add = (path: string, view: ApiView): void => {
    routes.push(route(path, view))
  }
  const { api, schemes, tokens, users } = ref
  const identity = (
    path: string,
    name: string,
    permissions: readonly Permission[],
    authentication?: readonly AuthenticationScheme[],
    withPost = false,
  ): void => {
    add(path,
      api.view({
        name,
        handlers: withPost ? { GET: whoami, POST: whoami } : { GET: whoami },
        permissions,
        ...(authentication === undefined ? {} : { authentication }),
      }),
    )
  }
  identity('/api/whoami/', 'Who Am I', [new AllowAny()])
  identity('/api/private/', 'Private', [new IsAuthenticated()])
  identity('/api/staff/', 'Staff', [new IsAdminUser()])
  identity('/api/schemes/basic/', 'Basic Scheme', [new IsAuthenticated()], [schemes.basic])
  identity('/api/schemes/token/', 'Token Scheme', [new IsAuthenticated()], [schemes.token])
  identity('/api/schemes/bearer/', 'Bearer Scheme', [new IsAuthenticated()], [
    new TokenAuthentication({ tokens, users, keyword: 'Bearer' }),
  ])
  identity('/api/schemes/session/', 'Session Scheme', [new IsAuthenticated()], [schemes.session], true)
  identity('/api/schemes/remote-user/', 'Remote User Scheme', [new IsAuthenticated()], [
    // Only a front server on this machine may name the user (reference-api settings: loopback).
    new RemoteUserAuthentication({ users, header: 'X-Remote-User', trustedAddresses: ['127.0.0.0/8', '::1'] }),
  ])
  identity('/api/schemes/custom/', 'Custom Scheme', [new IsAuthenticated()], [xUsernameScheme(ref)])
  identity('/api/schemes/session-basic/', 'Session Basic Scheme', [new IsAuthenticated()], [schemes.session, schemes.basic])
  identity('/api/schemes/basic-session/', 'Basic Session Scheme', [new IsAuthenticated()], [schemes.basic, schemes.session])
  return routes
}
