import { route, type Route } from 'gatehouse'
import { IsAuthenticated } from 'gatehouse'
import { JWTAuthentication, jwksView, jwtBlacklistView, jwtObtainPairView, jwtRefreshView, jwtVerifyView } from 'gatehouse/jwt'
import type { ReferenceContext } from '../context.js'
import { whoami } from './identity.js'

/**
 * The JWT routes of reference-api.md (simplejwt's views with its blacklist app, and `JWTAuthentication`, HS256 with
 * `GATEHOUSE_JWT_SIGNING_KEY`): none when the key is unset. With an RS or ES `GATEHOUSE_JWT_ALGORITHM`,
 * `/api/jwt/jwks/` serves the public key (simplejwt's `JWK_URL` for other servers).
 */
export function jwtRoutes(ref: ReferenceContext): Route[] {
  const codec = ref.jwt
  if (codec === null) return []
  const { api, users, loginFailures } = ref
  const blacklist = ref.jwtBlacklist
  return [
    route('/api/jwt/', api.view(jwtObtainPairView({ codec, users, loginFailures, blacklist }))),
    route('/api/jwt/refresh/', api.view(jwtRefreshView({ codec, users, blacklist }))),
    route('/api/jwt/verify/', api.view(jwtVerifyView({ codec, blacklist }))),
    route('/api/jwt/blacklist/', api.view(jwtBlacklistView({ codec, blacklist }))),
    ...(codec.settings.publicJwk === null ? [] : [route('/api/jwt/jwks/', api.view(jwksView({ codec })))]),
    route(
      '/api/schemes/jwt/',
      api.view({ name: 'JWT Scheme', handlers: { GET: whoami }, permissions: [new IsAuthenticated()], authentication: [new JWTAuthentication({ codec, users })] }),
    ),
  ]
}
