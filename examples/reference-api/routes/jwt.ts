import { route, type Route } from 'drf-gatehouse'
import { IsAuthenticated } from 'drf-gatehouse'
import { JWTAuthentication } from 'drf-gatehouse/jwt'
import type { ReferenceRoutesContext } from '../context.js'
import { whoami } from './identity.js'

/**
 * `/api/schemes/jwt/` of reference-api.md, behind `JWTAuthentication` alone: none when JWT is off.
 * The JWT views themselves (simplejwt's, with its blacklist app, under `/api/jwt/`; `/api/jwt/jwks/`
 * with an RS or ES `GATEHOUSE_JWT_ALGORITHM`) are the `jwt` feature's, among `ref.routes`.
 */
export function jwtSchemeRoutes(ref: ReferenceRoutesContext): Route[] {
  const codec = ref.jwt
  if (codec === null) return []
  return [
    route(
      '/api/schemes/jwt/',
      ref.api.view({ name: 'JWT Scheme', handlers: { GET: whoami }, permissions: [new IsAuthenticated()], authentication: [new JWTAuthentication({ codec, users: ref.users })] }),
    ),
  ]
}
