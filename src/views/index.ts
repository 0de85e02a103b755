export { validateCharFields, pythonStrip, NON_FIELD_ERRORS_KEY, type CharFieldOptions, type CharFieldValues } from './char-fields.js'
export { authenticateCredentials, INVALID_CREDENTIALS_MESSAGE } from './authenticate-credentials.js'
export {
  obtainAuthTokenView,
  userIdAndUsername,
  type ObtainAuthTokenOptions,
  type TokenResponseFields,
} from './obtain-auth-token.js'
export { namedTokenIssuer, type NamedTokenIssuerOptions } from './named-token-issuer.js'
export {
  resolveSessionCookies,
  csrfCookieHeader,
  sessionCookieHeader,
  expiredSessionCookieHeader,
  newSessionKey,
  SESSION_COOKIE_AGE,
  CSRF_COOKIE_AGE,
  type SessionCookieOptions,
  type ResolvedSessionCookies,
} from './session-cookies.js'
export { csrfView, type CsrfViewOptions } from './csrf-view.js'
export { loginView, type LoginViewOptions } from './login-view.js'
export { logoutView, type LogoutViewOptions } from './logout-view.js'
export { namedTokensView, namedTokenDetailView, revokeAllNamedTokensView, namedTokenJson, type NamedTokenViewOptions } from './named-tokens-views.js'
export { validateNewToken, parseExpiresIn, parseTokenId, MAX_EXPIRES_IN, MAX_TOKEN_NAME_LENGTH, type NewTokenInput } from './named-token-input.js'
