import type { AuthenticationScheme } from './authentication-scheme.js'
import type { HtmlTemplates, Paginator } from './paginator.js'
import type { Permission } from './permission.js'
import type { ResponseMiddleware } from './response-middleware.js'
import type { Throttle } from './throttle.js'
import { ConfigurationError } from './errors.js'
import { renderApiError, type ErrorLogger, type ExceptionHandler } from './exception-handler.js'
import { createStoreOutageLog, type StoreFaultLogger } from './store-outage-log.js'
import { anonymousUser, type User } from './user.js'

/**
 * Global settings: library defaults ⊕ the app's values, validated and frozen once.
 * Per-view options replace (never merge with) the keys they set.
 */
export interface Settings {
  /** Ordered authentication schemes (DRF `DEFAULT_AUTHENTICATION_CLASSES`). @default [] */
  readonly authentication: readonly AuthenticationScheme[]
  /**
   * All must pass (DRF `DEFAULT_PERMISSION_CLASSES`). An empty list allows every request, as
   * DRF's default `AllowAny` does.
   * @default []
   */
  readonly permissions: readonly Permission[]
  /** All are consulted (DRF `DEFAULT_THROTTLE_CLASSES`). @default [] */
  readonly throttles: readonly Throttle[]
  /** Default pagination style for list views (DRF `DEFAULT_PAGINATION_CLASS`). @default null */
  readonly pagination: Paginator | null
  /** Global page size (DRF `PAGE_SIZE`). @default null */
  readonly pageSize: number | null
  /**
   * Replacements for the built-in page-control templates (`numbers`, `previousNext`), for
   * every paginator that names them (DRF: overriding `rest_framework/pagination/*.html`).
   * @default {}
   */
  readonly htmlTemplates: HtmlTemplates
  /** The user of an unauthenticated request (DRF `UNAUTHENTICATED_USER`). @default anonymousUser */
  readonly unauthenticatedUser: () => User
  /** The auth of an unauthenticated request (DRF `UNAUTHENTICATED_TOKEN`). @default () => null */
  readonly unauthenticatedToken: () => unknown
  /**
   * How many reverse proxies in front of the app are trusted to append to
   * `X-Forwarded-For`. `0` (the default) ignores the header: unlike DRF's
   * default, a client cannot choose its own throttle identity.
   * @default 0
   */
  readonly numProxies: number
  /**
   * The host names this app answers to (Django's `ALLOWED_HOSTS`): `'api.example.com'`,
   * `'.example.com'` (the domain and its subdomains), `'*'` (any). A request for another
   * `Host` is `400 {"detail": "Invalid Host header."}` before anything else runs, so links
   * are never built from a client's choice of host. `null` does not check: set it in
   * production.
   * @default null
   */
  readonly allowedHosts: readonly string[] | null
  /**
   * Turns errors into responses (DRF `EXCEPTION_HANDLER`); `null` for an error it does not
   * own, which is then logged and answered 500.
   * @default renderApiError
   */
  readonly exceptionHandler: ExceptionHandler
  /** Where unrendered (500) errors are reported. @default console.error */
  readonly logError: ErrorLogger
  /**
   * Told of each request answered 503 because a store (database, Redis) failed. The default
   * writes one line per 503 naming the store, the operation and the reason, the driver's stack
   * once per outage, and a count when the outage ends (see `createStoreOutageLog`).
   * @default createStoreOutageLog()
   */
  readonly logStoreFault: StoreFaultLogger
  /**
   * Steps every view's answer passes through, in order, as Django's response middleware
   * (`new StaleSessionCookie({ session })` deletes a session cookie that holds no session,
   * as Django's session middleware does). Views only: the middleware-style `policies()` leave the
   * answer to the app. @default []
   */
  readonly responseMiddleware: readonly ResponseMiddleware[]
}

export const DEFAULT_SETTINGS: Settings = Object.freeze({
  authentication: Object.freeze([]),
  permissions: Object.freeze([]),
  throttles: Object.freeze([]),
  pagination: null,
  pageSize: null,
  htmlTemplates: Object.freeze({}),
  unauthenticatedUser: anonymousUser,
  unauthenticatedToken: () => null,
  numProxies: 0,
  allowedHosts: null,
  exceptionHandler: renderApiError,
  responseMiddleware: Object.freeze([]),
  logError: (error: unknown, context: { method: string; path: string }) => {
    console.error(`gatehouse: server error on ${context.method} ${context.path}:`, error)
  },
  logStoreFault: createStoreOutageLog(),
})

type Check = (value: unknown) => boolean
const isFunction: Check = (v) => typeof v === 'function'
const isPageSize: Check = (v) => v === null || (Number.isInteger(v) && (v as number) > 0)

const hasMethod =
  (method: string): Check =>
  (v) =>
    Array.isArray(v) && v.every((item) => typeof (item as Record<string, unknown>)?.[method] === 'function')

const CHECKS: Readonly<Record<keyof Settings, readonly [Check, string]>> = {
  authentication: [hasMethod('authenticate'), 'a list of objects with an authenticate() method'],
  permissions: [hasMethod('hasPermission'), 'a list of objects with a hasPermission() method'],
  throttles: [hasMethod('check'), 'a list of objects with a check() method'],
  pagination: [(v) => v === null || typeof (v as Record<string, unknown>)?.['paginate'] === 'function', 'a paginator or null'],
  pageSize: [isPageSize, 'a positive integer or null'],
  htmlTemplates: [
    (v) =>
      typeof v === 'object' && v !== null && Object.entries(v).every(([name, t]) => (name === 'numbers' || name === 'previousNext') && (t === undefined || typeof t === 'function')),
    'an object of template functions keyed numbers / previousNext',
  ],
  unauthenticatedUser: [isFunction, 'a function returning a user'],
  unauthenticatedToken: [isFunction, 'a function'],
  numProxies: [(v) => Number.isInteger(v) && (v as number) >= 0, 'a non-negative integer'],
  allowedHosts: [(v) => v === null || (Array.isArray(v) && v.every((h) => typeof h === 'string' && h !== '')), 'a list of host names or null'],
  exceptionHandler: [isFunction, 'a function (error, ctx) => ApiResponse | null'],
  logError: [isFunction, 'a function'],
  logStoreFault: [isFunction, 'a function'],
  responseMiddleware: [hasMethod('process'), 'a list of objects with a process() method'],
}

/** Validates one settings object; throws `ConfigurationError` naming the first bad key. */
export function validateSettings(values: Readonly<Record<string, unknown>>, where: string): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue
    const check = CHECKS[key as keyof Settings]
    if (check === undefined) {
      throw new ConfigurationError('ERR_UNKNOWN_SETTING', `${where}: unknown setting "${key}"`)
    }
    if (!check[0](value)) {
      throw new ConfigurationError('ERR_INVALID_SETTING', `${where}: setting "${key}" must be ${check[1]}`)
    }
  }
}

/** Library defaults ⊕ `overrides`, validated and frozen. */
export function resolveSettings(overrides: Partial<Settings> = {}): Settings {
  validateSettings(overrides as Record<string, unknown>, 'gatehouse settings')
  const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS }
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== undefined) merged[key] = Array.isArray(value) ? Object.freeze([...value]) : value
  }
  return Object.freeze(merged) as unknown as Settings
}
