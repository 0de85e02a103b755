// gatehouse: the framework-free public surface, what an app codes against (explicit names only;
// api/gatehouse.api.md pins every entry's surface, test/package/api-report.test.ts checks it).
// Adapters, Kysely and Redis stores, the store suites and the request plumbing for adapters
// (`gatehouse/http`) are subpath exports.
export type { ApiRequest, HeaderBag, RequestData } from './core/api-request.js'
export type { ApiResponse } from './core/api-response.js'
export { jsonResponse, emptyResponse, withHeaders } from './core/api-response.js'
export type { User, StoredUser, UserId } from './core/user.js'
export { anonymousUser } from './core/user.js'
export type { PolicyContext, ViewInfo } from './core/policy-context.js'
export { API_ERROR_CODES, CONFIGURATION_ERROR_CODES, type ApiErrorCode, type ConfigurationErrorCode } from './core/error-codes.js'
export { ApiError, isApiError, ValidationError, ParseError, AuthenticationFailed, NotAuthenticated, PermissionDenied, NotFound, MethodNotAllowed, NotAcceptable, UnsupportedMediaType, PayloadTooLarge, Throttled, ServiceUnavailable, WrappedSchemeError, ConfigurationError, type ErrorDetail } from './core/errors.js'
export { renderApiError } from './core/exception-handler.js'
export { isStoreUnavailable } from './core/store-faults.js'
export { type Format } from './core/negotiation.js'
export { DEFAULT_SETTINGS, type Settings, type ErrorLogger } from './core/settings.js'
export { ApiView, type Handler, type HandlerMethod, type RequestContext, type ViewOptions } from './core/view.js'
export type { RequestState } from './core/pipeline.js'
export { Guard, type GuardOptions } from './core/guard.js'
export { route, type Route } from './core/route.js'
export type { ExceptionHandler, ExceptionContext } from './core/exception-handler.js'
export { createApi, type Api } from './core/api.js'
export type { Authenticated, AuthenticationScheme } from './authentication/authentication-scheme.js'
export { BasicAuthentication, type BasicAuthenticationOptions } from './authentication/basic-authentication.js'
export { TokenAuthentication, type TokenAuthenticationOptions } from './authentication/token-authentication.js'
export type { TokenCache, TokenLoader } from './authentication/token-cache.js'
export { MemoryTokenCache, type MemoryTokenCacheOptions } from './authentication/memory-token-cache.js'
export { SessionAuthentication, type SessionAuthenticationOptions } from './authentication/session-authentication.js'
export { StaleSessionCookie, type StaleSessionCookieOptions } from './authentication/stale-session-cookie.js'
export { patchVary, type ResponseMiddleware } from './core/response-middleware.js'
export { updateSessionAuthHash, SESSION_AUTH_HASH_KEY, type UpdateSessionAuthHashOptions } from './authentication/session-auth-hash.js'
export { RemoteUserAuthentication, type RemoteUserAuthenticationOptions } from './authentication/remote-user-authentication.js'
export { enforceCsrf, CSRF_SAFE_METHODS, type CsrfOptions, type ResolvedCsrfOptions } from './authentication/csrf.js'
export type { Permission } from './permissions/permission.js'
export { and, or, not } from './permissions/permission.js'
export { AllowAny } from './permissions/allow-any.js'
export { IsAuthenticated } from './permissions/is-authenticated.js'
export { IsAdminUser } from './permissions/is-admin-user.js'
export { IsAuthenticatedOrReadOnly, SAFE_METHODS } from './permissions/is-authenticated-or-read-only.js'
export { validateCharFields, NON_FIELD_ERRORS_KEY, type CharFieldOptions, type CharFieldValues } from './views/char-fields.js'
export { authenticateCredentials, INVALID_CREDENTIALS_MESSAGE } from './views/authenticate-credentials.js'
export { obtainAuthTokenView, userIdAndUsername, type ObtainAuthTokenOptions, type TokenResponseFields, type TokenResponseFieldsSchema } from './views/obtain-auth-token.js'
export { namedTokenIssuer, type NamedTokenIssuerOptions } from './views/named-token-issuer.js'
export { type SessionCookieOptions, type ResolvedSessionCookies } from './views/session-cookies.js'
export { csrfView, type CsrfViewOptions } from './views/csrf-view.js'
export { loginView, type LoginViewOptions } from './views/login-view.js'
export { logoutView, type LogoutViewOptions } from './views/logout-view.js'
export { namedTokensView, namedTokenDetailView, revokeAllNamedTokensView, type NamedTokenViewOptions } from './views/named-tokens-views.js'
export type { Throttle, ThrottleDecision } from './throttling/throttle.js'
export type { ThrottleStore, ThrottleHit, ReleasableThrottleStore } from './throttling/throttle-store.js'
export { LoginFailureThrottle, type LoginFailureThrottleOptions } from './throttling/login-failure-throttle.js'
export { parseRate, type Rate } from './throttling/rate.js'
export { clientIdent } from './throttling/client-ident.js'
export { SimpleRateThrottle, type Clock, type SimpleRateThrottleOptions } from './throttling/simple-rate-throttle.js'
export { AnonRateThrottle, type RateThrottleOptions } from './throttling/anon-rate-throttle.js'
export { UserRateThrottle } from './throttling/user-rate-throttle.js'
export { ScopedRateThrottle, type ScopedRateThrottleOptions } from './throttling/scoped-rate-throttle.js'
export { MemoryThrottleStore, type MemoryThrottleStoreOptions } from './throttling/memory-throttle-store.js'
export type {
  HtmlContext,
  KeyValue,
  OrderingField,
  Page,
  PageLink,
  PageSource,
  PaginateOptions,
  Paginator,
  SeekArgs,
  SeekSource,
  TemplateOption,
  ControlTemplate,
  TemplateName,
  HtmlTemplates,
  PositionSeekArgs,
} from './pagination/paginator.js'
export { BasePagination, type BasePaginationOptions } from './pagination/base-pagination.js'
export { PageNumberPagination, type PageNumberPaginationOptions, type PageNumberState } from './pagination/page-number-pagination.js'
export { LimitOffsetPagination, type LimitOffsetPaginationOptions, type LimitOffsetState } from './pagination/limit-offset-pagination.js'
export { CursorPagination, parseOrdering, type CursorPaginationOptions, type CursorState } from './pagination/cursor-pagination.js'
export { LinkHeaderPagination } from './pagination/link-header-pagination.js'
export type { CountStrategy } from './pagination/count-strategy.js'
export { ArrayPageSource, type FieldReader } from './pagination/array-page-source.js'
export { numbersTemplate, previousNextTemplate, escapeHtml } from './html/control-templates.js'
export { replaceQueryParam, removeQueryParam, parsePositiveInt } from './pagination/query-params.js'
export { listHandler, paginatedList, type ListHandlerOptions, type PaginatedListOptions } from './pagination/list-handler.js'
export { OrderingFilter, type OrderingFilterOptions } from './pagination/ordering-filter.js'
export { formatResponse } from './html/browsable-page.js'
export type { UserStore, NewUser } from './stores/user-store.js'
export { UserCreatedHookError, type UserCreatedHook } from './stores/user-created-hook.js'
export type { TokenStore, TokenRecord, TokenWithUser } from './stores/token-store.js'
export type { NamedTokenStore, NamedTokenRecord, NamedTokenInfo, NewNamedToken, CreatedNamedToken } from './stores/named-token-store.js'
export { chainTokenStores, type TokenLookup } from './stores/token-store-chain.js'
export type { InvalidationBus, InvalidationEvent, InvalidationListener } from './stores/invalidation-bus.js'
export { LocalInvalidationBus, type LocalInvalidationBusOptions } from './stores/local-invalidation-bus.js'
export type { SessionStore, SessionRecord } from './stores/session-store.js'
export { DEFAULT_SCRYPT, hashPassword, needsRehash, verifyPassword, verifyPasswordUniform, type ScryptParams } from './crypto/passwords.js'
export { generateTokenKey } from './crypto/random.js'
export { timingSafeEqual } from './crypto/timing-safe-equal.js'
export type { JsonObject, JsonValue, OpenApiSecurityScheme, OpenApiParameter, OpenApiPaginatedResponse, OpenApiListDescription, OperationDescription } from './core/openapi-types.js'
export { openApiDocument, type OpenApiDocument, type OpenApiDocumentOptions } from './openapi/document.js'
export { openApiView, type OpenApiViewOptions } from './openapi/openapi-view.js'
export { describeHandler } from './openapi/describe-handler.js'
export { namedSchema } from './core/named-schema.js'
export type { OpenApiLicense } from './openapi/document.js'
