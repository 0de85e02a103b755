import { route, type Route } from 'gatehouse'
import { IsAuthenticated } from 'gatehouse'
import { JWTAuthentication, jwtObtainPairView, jwtRefreshView, jwtVerifyView } from 'gatehouse'
import type { ReferenceContext } from '../context.js'
import { whoami } from './identity.js'

/**
 * The JWT routes of reference-api.md (simplejwt's views and `JWTAuthentication`, HS256 with
 * `GATEHOUSE_JWT_SIGNING_KEY`): none when the key is unset.
 */
export function jwtRoutes(ref: ReferenceContext): Route[] {
  const codec = ref.jwt
  if (codec === null) return []
  const { api, users, loginFailures } = ref
  return [
    route('/api/jwt/', api.view(jwtObtainPairView({ codec, users, loginFailures }))),
    route('/api/jwt/refresh/', api.view(jwtRefreshView({ codec, users }))),
    route('/api/jwt/verify/', api.view(jwtVerifyView({ codec }))),
    route(
      '/api/schemes/jwt/',
      api.view({ name: 'JWT Scheme', handlers: { GET: whoami }, permissions: [new IsAuthenticated()], authentication: [new JWTAuthentication({ codec, users })] }),
    ),
  ]
}
