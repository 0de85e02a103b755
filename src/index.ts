// gatehouse: the framework-free public surface. Adapters and stores are subpath exports.
export type { ApiRequest, HeaderBag, RequestData } from './core/api-request.js'
export type { ApiResponse } from './core/api-response.js'
export { jsonResponse, emptyResponse, withHeaders, serializeBody } from './core/api-response.js'
export { createApiRequest, parseCookies, type RawRequest } from './core/request-factory.js'
export { parseBody, DEFAULT_PARSED_MEDIA_TYPES, type ParseBodyOptions } from './core/body-parser.js'
export type { User, StoredUser, UserId } from './core/user.js'
export { anonymousUser } from './core/user.js'
export type { PolicyContext, ViewInfo } from './core/policy-context.js'
export {
  ApiError,
  isApiError,
  ValidationError,
  ParseError,
  AuthenticationFailed,
  NotAuthenticated,
  PermissionDenied,
  NotFound,
  MethodNotAllowed,
  NotAcceptable,
  UnsupportedMediaType,
  Throttled,
  ServiceUnavailable,
  WrappedSchemeError,
  ConfigurationError,
  type ErrorDetail,
} from './core/errors.js'
export { renderApiError } from './core/exception-handler.js'
export { isStoreUnavailable, STORE_UNAVAILABLE_DETAIL } from './core/store-faults.js'
export { negotiateFormat, type Format } from './core/negotiation.js'
export { DEFAULT_SETTINGS, resolveSettings, type Settings, type ErrorLogger } from './core/settings.js'
export { ApiView, type Handler, type HandlerMethod, type RequestContext, type ViewOptions } from './core/view.js'
export { authenticate, runPolicies, type Identity, type RequestState } from './core/pipeline.js'
export { Guard, type GuardOptions } from './core/guard.js'
export { route, matchRoutes, type Route, type RouteMatcher } from './core/route.js'
export type { ExceptionHandler, ExceptionContext } from './core/exception-handler.js'
export { createApi, type Api } from './core/api.js'
export * from './authentication/index.js'
export * from './permissions/index.js'
export * from './views/index.js'
export * from './throttling/index.js'
export * from './pagination/index.js'
export type { UserStore, NewUser } from './stores/user-store.js'
export type { TokenStore, TokenRecord } from './stores/token-store.js'
export type { SessionStore, SessionRecord } from './stores/session-store.js'
export { DEFAULT_SCRYPT, dummyHash, hashPassword, needsRehash, verifyPassword, verifyPasswordUniform, type ScryptParams } from './crypto/passwords.js'
export { generateTokenKey } from './crypto/random.js'
export { timingSafeEqual } from './crypto/timing-safe-equal.js'
