/**
 * Every error code gatehouse uses, in one place: what a client sees in a rendered error
 * (`ApiError.code`, DRF's `default_code`, with its status) and what start-up reports
 * (`ConfigurationError.code`). docs/errors.md lists the same table; a test keeps the two,
 * and every code the source throws, in step.
 */

/** `ApiError` codes → HTTP status. Rendered as `{"detail": …}` (the code itself is not on the wire, as in DRF). */
export const API_ERROR_CODES = Object.freeze({
  invalid: 400,
  parse_error: 400,
  invalid_host: 400,
  too_many_fields: 400,
  authorization: 400,
  authentication_failed: 401,
  not_authenticated: 401,
  token_not_valid: 401,
  bad_authorization_header: 401,
  user_not_found: 401,
  user_inactive: 401,
  no_active_account: 401,
  password_changed: 401,
  invalid_token: 401,
  permission_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  payload_too_large: 413,
  unsupported_media_type: 415,
  throttled: 429,
  service_unavailable: 503,
  store_unavailable: 503,
  authorization_server_unavailable: 503,
} as const)

/** A code of `API_ERROR_CODES`. */
export type ApiErrorCode = keyof typeof API_ERROR_CODES

/** `ConfigurationError` codes → what was wrong. Thrown when an API, view, route, store or throttle is declared. */
export const CONFIGURATION_ERROR_CODES = Object.freeze({
  ERR_UNKNOWN_SETTING: 'a settings, view or route option key that does not exist (a typo would silently leave a route unprotected)',
  ERR_INVALID_SETTING: 'a setting or option of the wrong type or out of range',
  ERR_NO_HANDLERS: 'a view without any handler',
  ERR_INVALID_HANDLER: 'a view handler under an unknown method name, or not a function',
  ERR_INVALID_ROUTE: 'a route path without a leading "/", with a malformed or repeated parameter or a character routers treat specially, or `params` options naming no parameter of the path or no known kind',
  ERR_INVALID_RATE: 'a throttle rate that is not "N/period"',
  ERR_NO_THROTTLE_RATE: 'a throttle (scope) with no rate',
  ERR_CURSOR_ORDERING: 'an empty or malformed cursor ordering',
  ERR_CURSOR_SOURCE: 'cursor pagination over a source without seek()',
  ERR_NO_PAGE_SIZE: 'a paginator with no page size, on itself or in the pageSize setting: it would answer every row (pageSize: null says so on purpose)',
  ERR_CURSOR_NULL: 'a cursor ordering field that a row holds as NULL or that the query does not select',
  ERR_PAGE_SOURCE_COLUMN: 'an ordering field the page source does not declare in its columns',
  ERR_ORDERING_FILTER: 'an ordering filter without fields, with a malformed field, default ordering or parameter, or over a source without orderedBy()',
  ERR_FILTER_SET: 'a filter set without filters, with an unknown lookup, a text lookup on a field that is not text, or a choice filter without choices; or a search filter without fields or with a prefix the source cannot serve',
  ERR_GATEHOUSE_SECRET: 'a missing or too short cursor secret',
  ERR_GATEHOUSE_REMOTE_USER_TRUST: 'remote-user authentication without trusted addresses',
  ERR_DATABASE_URL: 'a database URL gatehouse cannot open',
  ERR_QUERY_PARAMETER: 'a prepared query run without a value for one of its parameters',
  ERR_SQLITE_DRIVER: 'no SQLite driver this runtime can load (better-sqlite3, node:sqlite or bun:sqlite)',
} as const)

/** A code of `CONFIGURATION_ERROR_CODES`. */
export type ConfigurationErrorCode = keyof typeof CONFIGURATION_ERROR_CODES
