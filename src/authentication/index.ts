export type { Authenticated, AuthenticationScheme } from './authentication-scheme.js'
export { schemeName } from './authentication-scheme.js'
export { BasicAuthentication, type BasicAuthenticationOptions } from './basic-authentication.js'
export { TokenAuthentication, type TokenAuthenticationOptions } from './token-authentication.js'
export type { TokenCache, TokenLoader } from './token-cache.js'
export { MemoryTokenCache, type MemoryTokenCacheOptions } from './memory-token-cache.js'
export { SessionAuthentication, type SessionAuthenticationOptions } from './session-authentication.js'
export { StaleSessionCookie, type StaleSessionCookieOptions } from './stale-session-cookie.js'
export { updateSessionAuthHash, SESSION_AUTH_HASH_KEY, type UpdateSessionAuthHashOptions } from './session-auth-hash.js'
export { RemoteUserAuthentication, type RemoteUserAuthenticationOptions } from './remote-user-authentication.js'
export {
  enforceCsrf,
  maskCsrfSecret,
  newCsrfSecret,
  csrfSecretOf,
  resolveCsrfOptions,
  CSRF_SAFE_METHODS,
  type CsrfOptions,
  type ResolvedCsrfOptions,
} from './csrf.js'
