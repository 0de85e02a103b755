export { resolveJwtSettings, type JwtSettings, type ResolvedJwtSettings } from './jwt-settings.js'
export { JwtCodec, type JwtPayload, type TokenType } from './jwt-codec.js'
export { TokenError, TOKEN_MESSAGES } from './token-error.js'
export {
  JWTAuthentication,
  JWTStatelessUserAuthentication,
  integerUserId,
  type JwtAuthenticationOptions,
  type JwtUserAuthenticationOptions,
} from './jwt-authentication.js'
export {
  jwtObtainPairView,
  jwtRefreshView,
  jwtVerifyView,
  refreshPayloadFor,
  accessPayloadFrom,
  NO_ACTIVE_ACCOUNT_MESSAGE,
  type JwtViewOptions,
  type JwtObtainPairOptions,
  type JwtRefreshOptions,
} from './token-views.js'
