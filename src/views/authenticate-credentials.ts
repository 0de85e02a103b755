import type { ApiRequest } from '../core/api-request.js'
import { ValidationError } from '../core/errors.js'
import type { StoredUser } from '../core/user.js'
import type { UserStore } from '../stores/user-store.js'
import type { LoginFailureThrottle } from '../throttling/login-failure-throttle.js'
import { NON_FIELD_ERRORS_KEY, validateCharFields } from './char-fields.js'

/** DRF's `AuthTokenSerializer` message for a wrong password, an unknown user or an inactive one alike. */
export const INVALID_CREDENTIALS_MESSAGE = 'Unable to log in with provided credentials.'

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
  users: Pick<UserStore, 'authenticate'>,
  loginFailures?: LoginFailureThrottle,
): Promise<StoredUser> {
  const { username, password } = validateCharFields(
    await req.body(),
    { username: {}, password: { trimWhitespace: false } },
    req,
  )
  const user =
    loginFailures === undefined
      ? await users.authenticate(username, password)
      : await loginFailures.guard(req, username, () => users.authenticate(username, password))
  if (user === null) throw new ValidationError({ [NON_FIELD_ERRORS_KEY]: [INVALID_CREDENTIALS_MESSAGE] }, 'authorization')
  return user
}
