// gatehouse/oauth2: an OAuth 2.0 resource server (access tokens from Auth0, Okta, Keycloak, Entra ID
// or any OpenID provider) and django-oauth-toolkit's scope permissions. A separate entry so that
// an app without it never loads it.
export { OAuth2Authentication, OAUTH2_ALGORITHMS, PROVIDER_UNAVAILABLE_DETAIL, INTROSPECTION_BUSY_DETAIL, type OAuth2Algorithm, type OAuth2AuthenticationOptions, type OAuth2IntrospectionOptions, type OAuth2OpenApiOptions } from './oauth2-authentication.js'
export { OAuth2AccessToken, accessTokenOf, tokenPrincipal, type OAuth2AccessTokenInit } from './access-token.js'
export { TokenHasScope, TokenHasReadWriteScope, type ReadWriteScopes } from './scope-permissions.js'
export { usersByClaim, type UsersByClaimOptions } from './users-by-claim.js'
export { parseBearerAuthorization, MAX_ACCESS_TOKEN_LENGTH, type BearerCredential } from './bearer-header.js'
export type { IntrospectionAuthMethod } from './introspection.js'
export { oauth2, type OAuth2FeatureOptions, type OAuth2FeatureParts } from './oauth2-feature.js'
