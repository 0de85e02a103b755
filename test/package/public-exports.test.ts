import { describe, expect, it } from 'vitest'
import * as root from 'gatehouse'

/**
 * The root entry's run-time exports, pinned: adding one is a public-API decision (update this
 * list on purpose), and an internal helper (a cookie serialiser, a page-link builder) leaking
 * into the public surface fails here.
 */
const PUBLIC_EXPORTS = [
  'AllowAny',
  'AnonRateThrottle',
  'ApiError',
  'ApiView',
  'ArrayPageSource',
  'AuthenticationFailed',
  'BasePagination',
  'BasicAuthentication',
  'CSRF_SAFE_METHODS',
  'ConfigurationError',
  'CursorPagination',
  'DEFAULT_SCRYPT',
  'DEFAULT_SETTINGS',
  'Guard',
  'INVALID_CREDENTIALS_MESSAGE',
  'IsAdminUser',
  'IsAuthenticated',
  'IsAuthenticatedOrReadOnly',
  'LimitOffsetPagination',
  'LinkHeaderPagination',
  'LoginFailureThrottle',
  'MemoryThrottleStore',
  'MethodNotAllowed',
  'NON_FIELD_ERRORS_KEY',
  'NotAcceptable',
  'NotAuthenticated',
  'NotFound',
  'PageNumberPagination',
  'ParseError',
  'PayloadTooLarge',
  'PermissionDenied',
  'RemoteUserAuthentication',
  'SAFE_METHODS',
  'ScopedRateThrottle',
  'ServiceUnavailable',
  'SessionAuthentication',
  'SimpleRateThrottle',
  'Throttled',
  'TokenAuthentication',
  'UnsupportedMediaType',
  'UserRateThrottle',
  'ValidationError',
  'WrappedSchemeError',
  'and',
  'anonymousUser',
  'authenticateCredentials',
  'clientIdent',
  'createApi',
  'createApiRequest',
  'csrfView',
  'decodeCursor',
  'emptyResponse',
  'encodeCursor',
  'enforceCsrf',
  'escapeHtml',
  'formatResponse',
  'generateTokenKey',
  'hashPassword',
  'isApiError',
  'isSeekSource',
  'isStoreUnavailable',
  'jsonResponse',
  'listHandler',
  'loginView',
  'logoutView',
  'matchRoutes',
  'needsRehash',
  'not',
  'numbersTemplate',
  'obtainAuthTokenView',
  'or',
  'paginatedList',
  'parseOrdering',
  'parsePositiveInt',
  'parsePythonInt',
  'parseRate',
  'previousNextTemplate',
  'queryParam',
  'removeQueryParam',
  'renderApiError',
  'renderBrowsablePage',
  'replaceQueryParam',
  'route',
  'runPolicies',
  'schemeName',
  'timingSafeEqual',
  'userIdAndUsername',
  'validateCharFields',
  'verifyPassword',
  'verifyPasswordUniform',
  'withHeaders',
]

describe('the root entry', () => {
  it('exports exactly the public API', () => {
    expect(Object.keys(root).sort()).toEqual([...PUBLIC_EXPORTS].sort())
  })

  it('exports none of the internals it used to (cookie headers, CSRF masking, page-link math, strip)', () => {
    for (const internal of ['pythonStrip', 'PAGE_BREAK', 'csrfCookieHeader', 'throttleWait', 'maskCsrfSecret', 'parseCookies', 'dummyHash']) {
      expect(Object.keys(root)).not.toContain(internal)
    }
  })
})
