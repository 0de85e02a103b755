import type { ApiRequest } from '../core/api-request.js'
import { ValidationError } from '../core/errors.js'
import type { StoredUser } from '../core/user.js'
import type { UserStore } from '../stores/user-store.js'
import { failureUsername, type LoginFailureThrottle } from '../throttling/login-failure-throttle.js'
import { NON_FIELD_ERRORS_KEY, validateCharFields } from './char-fields.js'

/** DRF's `AuthTokenSerializer` message for a wrong password, an unknown user or an inactive one alike. */
export const INVALID_CREDENTIALS_MESSAGE = 'Unable to log in with provided credentials.'

/**
 * One password check, counted by `loginFailures` when given: the path every view that takes a
 * username and password goes through (token obtain, JWT obtain, login), so they all share
 * one failed-login budget. `null` for bad, unknown or inactive credentials.
 * @throws Throttled (429) once the username or client has failed too often.
 */
export async function checkCredentials(
  req: ApiRequest,
  users: Pick<UserStore, 'authenticate' | 'canonicalUsername'>,
  username: string,
  password: string,
  loginFailures?: LoginFailureThrottle,
): Promise<StoredUser | null> {
  if (loginFailures === undefined) return users.authenticate(username, password)
  return loginFailures.guard(req, failureUsername(users, username), () => users.authenticate(username, password))
}

/**
 * DRF's `AuthTokenSerializer`: reads `username` (trimmed) and `password` (not trimmed)
 * from a JSON, urlencoded or multipart body, then asks the user store. Field errors,
 * a non-object body, and bad or inactive credentials are all `ValidationError` (400);
 * parse errors surface as the body parser raises them (400 / 415). With `loginFailures`,
 * the check runs under that throttle: 429 once the username or client has failed too often.
 *
 * @example
 * const user = await authenticateCredentials(ctx.request, users)
 */
export async function authenticateCredentials(
  req: ApiRequest,
  users: Pick<UserStore, 'authenticate' | 'canonicalUsername'>,
  loginFailures?: LoginFailureThrottle,
): Promise<StoredUser> {
  const { username, password } = validateCharFields(
    await req.body(),
    { username: {}, password: { trimWhitespace: false } },
    req,
  )
  const user = await checkCredentials(req, users, username, password, loginFailures)
  if (user === null) throw new ValidationError({ [NON_FIELD_ERRORS_KEY]: [INVALID_CREDENTIALS_MESSAGE] }, 'authorization')
  return user
}
