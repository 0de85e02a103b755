// The type expressions that CHANGELOG.md's "Upgrading to 1.0" table gives in place of the names 1.0 stopped
// exporting: each must still name a type through the package entries (`npm run typecheck` compiles this file).
import type * as gh from 'drf-gatehouse'
import type * as kysely from 'drf-gatehouse/kysely'
import type * as redis from 'drf-gatehouse/redis'
import type * as fastify from 'drf-gatehouse/fastify'
import type * as express from 'drf-gatehouse/express'
import type * as hono from 'drf-gatehouse/hono'
import type * as node from 'drf-gatehouse/node'
import type * as testing from 'drf-gatehouse/testing'
import type * as http from 'drf-gatehouse/http'
import type * as jwt from 'drf-gatehouse/jwt'
import type * as oauth2 from 'drf-gatehouse/oauth2'
export type ActionField_gh = gh.ActionFields[string]
export type ApiErrorCode_gh = keyof typeof gh.API_ERROR_CODES
export type ApiErrorOptions_gh = ConstructorParameters<typeof gh.ApiError>[2]
export type BasePaginationOptions_gh = ConstructorParameters<typeof gh.PageNumberPagination>[0]
export type BasicAuthenticationOptions_gh = ConstructorParameters<typeof gh.BasicAuthentication>[0]
export type CharFieldOptions_gh = Parameters<typeof gh.validateCharFields>[1][string]
export type CharFieldValues_gh = ReturnType<typeof gh.validateCharFields>
export type ConfigurationErrorCode_gh = ConstructorParameters<typeof gh.ConfigurationError>[0]
export type CsrfOptions_gh = NonNullable<ConstructorParameters<typeof gh.SessionAuthentication>[0]['csrf']>
export type CsrfViewOptions_gh = Parameters<typeof gh.csrfView>[0]
export type CursorPaginationOptions_gh = ConstructorParameters<typeof gh.CursorPagination>[0]
export type ErrorHeader_gh = readonly [name: string, value: string]
export type ErrorLogger_gh = gh.Settings['logError']
export type Format_gh = gh.RequestContext['format']
export type HandlerMethod_gh = Parameters<typeof gh.policyRoute>[0]
export type HeaderBag_gh = gh.ApiRequest['headers']
export type IsOwnerOrReadOnlyOptions_gh = ConstructorParameters<typeof gh.IsOwnerOrReadOnly>[0]
export type JsonValue_gh = gh.JsonObject[string]
export type LimitOffsetPaginationOptions_gh = ConstructorParameters<typeof gh.LimitOffsetPagination>[0]
export type ListHandlerOptions_gh = Parameters<typeof gh.listHandler>[0]
export type LocalInvalidationBusOptions_gh = ConstructorParameters<typeof gh.LocalInvalidationBus>[0]
export type LoginFailureThrottleOptions_gh = ConstructorParameters<typeof gh.LoginFailureThrottle>[0]
export type LoginViewOptions_gh = Parameters<typeof gh.loginView>[0]
export type LogoutViewOptions_gh = Parameters<typeof gh.logoutView>[0]
export type MemoryThrottleStoreOptions_gh = ConstructorParameters<typeof gh.MemoryThrottleStore>[0]
export type MemoryTokenCacheOptions_gh = ConstructorParameters<typeof gh.MemoryTokenCache>[0]
export type NamedTokenIssuerOptions_gh = Parameters<typeof gh.namedTokenIssuer>[1]
export type NamedTokenViewOptions_gh = Parameters<typeof gh.namedTokenDetailView>[0]
export type ObtainAuthTokenOptions_gh = Parameters<typeof gh.obtainAuthTokenView>[0]
export type OpenApiDocument_gh = ReturnType<typeof gh.openApiDocument>
export type OpenApiDocumentOptions_gh = Parameters<typeof gh.openApiDocument>[1]
export type OpenApiRouteOptions_gh = { readonly openApi?: gh.OperationDescription }
export type OpenApiViewOptions_gh = Parameters<typeof gh.openApiView>[0]
export type OrderingFilterOptions_gh = ConstructorParameters<typeof gh.OrderingFilter>[0]
export type PageNumberPaginationOptions_gh = ConstructorParameters<typeof gh.PageNumberPagination>[0]
export type PaginatedListOptions_gh = Parameters<typeof gh.paginatedList>[3]
export type PathParam_gh = NonNullable<NonNullable<Parameters<typeof gh.route>[2]>['params']>[string]
export type PolicyRoute_gh = Exclude<gh.DescribedRoute, gh.Route>
export type PolicySettings_gh = NonNullable<gh.PolicyContext['settings']>
export type RateThrottleOptions_gh = ConstructorParameters<typeof gh.AnonRateThrottle>[0]
export type RemoteUserAuthenticationOptions_gh = ConstructorParameters<typeof gh.RemoteUserAuthentication>[0]
export type ResolvedCsrfOptions_gh = Parameters<typeof gh.enforceCsrf>[1]
export type RouteOptions_gh = Parameters<typeof gh.route>[2]
export type ScopedRateThrottleOptions_gh = ConstructorParameters<typeof gh.ScopedRateThrottle>[0]
export type SessionAuthenticationOptions_gh = ConstructorParameters<typeof gh.SessionAuthentication>[0]
export type SessionLoginOptions_gh = Parameters<typeof gh.sessionLogin>[0]
export type SimpleRateThrottleOptions_gh = ConstructorParameters<typeof gh.SimpleRateThrottle>[0]
export type StaleSessionCookieOptions_gh = ConstructorParameters<typeof gh.StaleSessionCookie>[0]
export type StoreFault_gh = ReturnType<typeof gh.describeStoreFault>
export type StoreFaultLogger_gh = gh.Settings['logStoreFault']
export type StoreOutageLogOptions_gh = Parameters<typeof gh.createStoreOutageLog>[0]
export type TokenAuthenticationOptions_gh = ConstructorParameters<typeof gh.TokenAuthentication>[0]
export type TokenLookup_gh = Pick<gh.TokenStore, 'findByKey' | 'findWithUser' | 'touch'>
export type UpdateSessionAuthHashOptions_gh = Parameters<typeof gh.updateSessionAuthHash>[0]
export type AuthMigrationOptions_gh_kysely = Parameters<typeof kysely.authMigrations>[1]
export type DatabaseTarget_gh_kysely = Parameters<typeof kysely.createDialect>[0]
export type JwtTokensTable_gh_kysely = kysely.JwtBlacklistDatabase[keyof kysely.JwtBlacklistDatabase]
export type KyselyJwtBlacklistStoreOptions_gh_kysely = ConstructorParameters<typeof kysely.KyselyJwtBlacklistStore>[0]
export type KyselyNamedTokenStoreOptions_gh_kysely = ConstructorParameters<typeof kysely.KyselyNamedTokenStore>[0]
export type KyselyPageSourceOptions_gh_kysely = ConstructorParameters<typeof kysely.KyselyPageSource>[0]
export type KyselySessionStoreOptions_gh_kysely = ConstructorParameters<typeof kysely.KyselySessionStore>[0]
export type KyselyTokenStoreOptions_gh_kysely = ConstructorParameters<typeof kysely.KyselyTokenStore>[0]
export type KyselyUserStoreOptions_gh_kysely = ConstructorParameters<typeof kysely.KyselyUserStore>[0]
export type MigrationResult_gh_kysely = Awaited<ReturnType<typeof kysely.migrate>>
export type MigrationResultSet_gh_kysely = Awaited<ReturnType<typeof kysely.migrate>>
export type NamedTokensTable_gh_kysely = kysely.AuthDatabase['gatehouse_named_tokens']
export type PreparedPageSourceOptions_gh_kysely = Parameters<typeof kysely.preparePageSource>[0]
export type QueryParameters_gh_kysely = Parameters<typeof kysely.prepareQuery>[1]
export type RequiredUserTable_gh_kysely = ConstructorParameters<typeof kysely.KyselyUserStore>[0]
export type SessionsTable_gh_kysely = kysely.AuthDatabase['gatehouse_sessions']
export type TokensTable_gh_kysely = kysely.AuthDatabase['gatehouse_tokens']
export type UsersTable_gh_kysely = kysely.AuthDatabase['gatehouse_users']
export type IoredisLike_gh_redis = Parameters<typeof redis.fromIoredis>[0]
export type RedisClientOptions_gh_redis = Parameters<typeof redis.createRedisClient>[1]
export type RedisClusterClientOptions_gh_redis = Parameters<typeof redis.createRedisClusterClient>[1]
export type RedisInvalidationBusOptions_gh_redis = ConstructorParameters<typeof redis.RedisInvalidationBus>[0]
export type RedisSessionStoreOptions_gh_redis = ConstructorParameters<typeof redis.RedisSessionStore>[0]
export type RedisThrottleStoreOptions_gh_redis = ConstructorParameters<typeof redis.RedisThrottleStore>[0]
export type GatehouseOptions_gh_fastify = Parameters<typeof fastify.gatehouse>[1]
export type PoliciesOptions_gh_fastify = Parameters<typeof fastify.policies>[1]
export type PoliciesOptions_gh_express = Parameters<typeof express.policies>[1]
export type PoliciesOptions_gh_hono = Parameters<typeof hono.policies>[1]
export type PoliciesOptions_gh_node = Parameters<typeof node.policies>[1]
export type JwtBlacklistStoreSuiteOptions_gh_testing = Parameters<typeof testing.runJwtBlacklistStoreSuite>[0]
export type ReservingThrottleStoreSuiteOptions_gh_testing = Parameters<typeof testing.runReservingThrottleStoreSuite>[0]
export type SessionStoreSuiteOptions_gh_testing = Parameters<typeof testing.runSessionStoreSuite>[0]
export type TokenStoreSuiteOptions_gh_testing = Parameters<typeof testing.runTokenStoreSuite>[0]
export type UserStoreSuiteOptions_gh_testing = Parameters<typeof testing.runUserStoreSuite>[0]
export type ErrorScope_gh_http = Parameters<typeof http.errorResponse>[1]
export type HtmlTemplates_gh_http = gh.Settings['htmlTemplates']
export type ParseBodyOptions_gh_http = Parameters<typeof http.parseBody>[2]
export type RawRequest_gh_http = Parameters<typeof http.createApiRequest>[0]
export type RouteMatcher_gh_http = ReturnType<typeof http.matchRoutes>
export type TemplateName_gh_http = keyof gh.Settings['htmlTemplates']
export type WireResponse_gh_http = ReturnType<typeof http.wireResponse>
export type JwksViewOptions_gh_jwt = Parameters<typeof jwt.jwksView>[0]
export type JwtAuthenticationOptions_gh_jwt = ConstructorParameters<typeof jwt.JWTStatelessUserAuthentication>[0]
export type JwtBlacklistViewOptions_gh_jwt = Parameters<typeof jwt.jwtBlacklistView>[0]
export type JwtObtainPairOptions_gh_jwt = Parameters<typeof jwt.jwtObtainPairView>[0]
export type JwtObtainSlidingOptions_gh_jwt = Parameters<typeof jwt.jwtObtainSlidingView>[0]
export type JwtRefreshOptions_gh_jwt = Parameters<typeof jwt.jwtRefreshView>[0]
export type JwtRefreshSlidingOptions_gh_jwt = Parameters<typeof jwt.jwtRefreshSlidingView>[0]
export type JwtUserAuthenticationOptions_gh_jwt = ConstructorParameters<typeof jwt.JWTAuthentication>[0]
export type JwtViewOptions_gh_jwt = Parameters<typeof jwt.jwtVerifyView>[0]
export type ResolvedJwtSettings_gh_jwt = ConstructorParameters<typeof jwt.JwtCodec>[0]
export type TokenType_gh_jwt = jwt.JwtPayload['token_type']
export type OAuth2AccessTokenInit_gh_oauth2 = ConstructorParameters<typeof oauth2.OAuth2AccessToken>[0]
export type OAuth2AuthenticationOptions_gh_oauth2 = ConstructorParameters<typeof oauth2.OAuth2Authentication>[0]
export type OAuth2IntrospectionOptions_gh_oauth2 = NonNullable<ConstructorParameters<typeof oauth2.OAuth2Authentication>[0]['introspection']>
export type OAuth2OpenApiOptions_gh_oauth2 = NonNullable<ConstructorParameters<typeof oauth2.OAuth2Authentication>[0]['openApi']>
export type ReadWriteScopes_gh_oauth2 = ConstructorParameters<typeof oauth2.TokenHasReadWriteScope>[0]
