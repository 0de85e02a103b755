// gatehouse/oauth2: an OAuth 2.0 resource server (access tokens from Auth0, Okta, Keycloak, Entra ID
// or any OpenID provider) and django-oauth-toolkit's scope permissions. A separate entry so that
// an app without it never loads it.
export { OAuth2Authentication } from './oauth2-authentication.js'
export { OAuth2AccessToken, accessTokenOf } from './access-token.js'
export { TokenHasScope, TokenHasReadWriteScope } from './scope-permissions.js'
export { usersByClaim, type UsersByClaimOptions } from './users-by-claim.js'
export { oauth2, type OAuth2FeatureOptions } from './oauth2-feature.js'
