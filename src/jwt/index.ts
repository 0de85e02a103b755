// gatehouse/jwt: JSON Web Tokens as simplejwt has them (obtain, refresh, verify, blacklist views,
// the JWT schemes, the codec, JWKS). A separate entry so that an app without JWT never loads `jose`.
export { resolveJwtSettings, type AuthTokenClass, type JwtSettings, type ResolvedJwtSettings } from './jwt-settings.js'
export { decodeSliding, slidingPayloadFor } from './sliding-token.js'
export { JwtCodec, type JwtPayload, type TokenType } from './jwt-codec.js'
export { JWT_ALGORITHMS, publicJwkFromPem, type JwtAlgorithm, type PublicJwk } from './jwt-keys.js'
export { jwksView, type JwksViewOptions } from './jwks-view.js'
export { TokenError, TOKEN_MESSAGES } from './token-error.js'
export { JWTAuthentication, JWTStatelessUserAuthentication, integerUserId, type JwtAuthenticationOptions, type JwtUserAuthenticationOptions } from './jwt-authentication.js'
export type { JwtBlacklistStore, JwtTokenInfo, OutstandingJwt } from '../stores/jwt-blacklist-store.js'
export { jwtObtainPairView, jwtRefreshView, jwtVerifyView, jwtBlacklistView, jwtObtainSlidingView, jwtRefreshSlidingView, type JwtObtainSlidingOptions, type JwtRefreshSlidingOptions, type JwtBlacklistViewOptions, refreshPayloadFor, accessPayloadFrom, NO_ACTIVE_ACCOUNT_MESSAGE, type JwtViewOptions, type JwtObtainPairOptions, type JwtRefreshOptions } from './token-views.js'
export { jwt, type JwtFeatureOptions, type JwtFeatureParts } from './jwt-feature.js'
