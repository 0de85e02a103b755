// gatehouse/jwt: JSON Web Tokens as simplejwt has them (obtain, refresh, verify, blacklist views,
// the JWT schemes, the codec, JWKS). A separate entry so that an app without JWT never loads `jose`.
export { resolveJwtSettings, type JwtSettings } from './jwt-settings.js'
export { slidingPayloadFor } from './sliding-token.js'
export { JwtCodec, type JwtPayload } from './jwt-codec.js'
export { JWT_ALGORITHMS, publicJwkFromPem, type JwtAlgorithm } from './jwt-keys.js'
export { jwksView } from './jwks-view.js'
export { TokenError } from './token-error.js'
export { JWTAuthentication, JWTStatelessUserAuthentication, integerUserId } from './jwt-authentication.js'
export type { JwtBlacklistStore, JwtTokenInfo, OutstandingJwt } from '../stores/jwt-blacklist-store.js'
export { jwtObtainPairView, jwtRefreshView, jwtVerifyView, jwtBlacklistView, jwtObtainSlidingView, jwtRefreshSlidingView, refreshPayloadFor, accessPayloadFrom } from './token-views.js'
export { jwt, type JwtFeatureOptions } from './jwt-feature.js'
