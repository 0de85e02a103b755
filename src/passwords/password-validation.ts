/**
 * Django's password validation (`django.contrib.auth.password_validation`, 3.2): the four
 * validators of Django's default `AUTH_PASSWORD_VALIDATORS`, with Django's messages, and
 * `validatePassword`, which runs a list of them. The admin's add-user and set-password forms and
 * the command line's `create-user` and `changepassword` run them; an app's own sign-up or
 * password-change view can call `validatePassword` the same way. Storing a password
 * (`UserStore.create`, `setPassword`) never validates it, as Django's `set_password` does not.
 */

/**
 * The user whose password is checked: any object (a `StoredUser`, `{ username }` for one not
 * created yet); `UserAttributeSimilarityValidator` reads the string attributes it is told to.
 */
export type PasswordUser = object

/**
 * One password rule, as Django's validator classes: `validate` answers why `password` is
 * refused (no message: accepted), `helpText` one sentence the forms show. Write your own with
 * the same two methods and pass it with (or instead of) `defaultPasswordValidators()`.
 *
 * @example
 * const noGatehouse: PasswordValidator = {
 *   validate: (password) => (password.toLowerCase().includes('gatehouse') ? ['The password cannot contain “gatehouse”.'] : []),
 *   helpText: () => 'Your password can’t contain “gatehouse”.',
 * }
 */
export interface PasswordValidator {
  /** The messages refusing `password` for `user` (`null` when there is no user yet); empty when it passes. */
  validate(password: string, user: PasswordUser | null): readonly string[] | Promise<readonly string[]>
  /** What the rule asks, for the forms' help (Django's `get_help_text`). */
  helpText(): string
}

/** The number of characters as Python counts them (code points, not UTF-16 units). */
function codePointLength(text: string): number {
  let length = 0
  for (const _ of text) length += 1
  return length
}

/** Django's `MinimumLengthValidator`: at least `minLength` characters (code points). @default 8 */
export class MinimumLengthValidator implements PasswordValidator {
  readonly minLength: number
  constructor(options: { readonly minLength?: number } = {}) {
    const minLength = options.minLength ?? 8
    if (!Number.isInteger(minLength) || minLength < 0) throw new RangeError('MinimumLengthValidator: minLength must be a whole number of characters')
    this.minLength = minLength
  }
  validate(password: string): readonly string[] {
    if (codePointLength(password) >= this.minLength) return []
    return [`This password is too short. It must contain at least ${this.minLength} ${this.minLength === 1 ? 'character' : 'characters'}.`]
  }
  helpText(): string {
    return `Your password must contain at least ${this.minLength} ${this.minLength === 1 ? 'character' : 'characters'}.`
  }
}

/**
 * The user attributes Django's `UserAttributeSimilarityValidator` reads by default, as
 * gatehouse users spell them, with Django's verbose names (the words of its message).
 */
const DEFAULT_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({
  username: 'username',
  firstName: 'first name',
  lastName: 'last name',
  email: 'email address',
})

/** Python's `re.split(r'\W+', text)`: `\w` is a letter, a number or `_` (the same set for str patterns). */
const NON_WORD = /[^\p{L}\p{N}_]+/u

/**
 * `difflib.SequenceMatcher(a, b).quick_ratio()`: twice the size of the multiset intersection
 * of the two strings' characters over their total length (1 for two empty strings).
 */
function quickRatio(a: readonly string[], b: readonly string[]): number {
  const available = new Map<string, number>()
  for (const c of b) available.set(c, (available.get(c) ?? 0) + 1)
  let matches = 0
  for (const c of a) {
    const left = available.get(c) ?? 0
    available.set(c, left - 1)
    if (left > 0) matches += 1
  }
  const length = a.length + b.length
  return length === 0 ? 1 : (2 * matches) / length
}

/**
 * Django's `UserAttributeSimilarityValidator`: refuses a password too much like the username
 * (or another attribute: `firstName`, `lastName`, `email` by default, those the user has) or
 * like a part of it between non-word characters (`alice` of `alice.smith@example.com`),
 * compared as Django does (`SequenceMatcher.quick_ratio` of the lowercased texts).
 * @default maxSimilarity 0.7
 */
export class UserAttributeSimilarityValidator implements PasswordValidator {
  readonly attributes: Readonly<Record<string, string>>
  readonly maxSimilarity: number
  /**
   * @param options.attributes the user attributes to compare, each with the words the message
   *   names it by (`{ username: 'username', nickname: 'nickname' }`). @default username, firstName, lastName, email
   * @param options.maxSimilarity refuse at this similarity and above, 0.1 to 1.
   */
  constructor(options: { readonly attributes?: Readonly<Record<string, string>>; readonly maxSimilarity?: number } = {}) {
    const maxSimilarity = options.maxSimilarity ?? 0.7
    if (!(maxSimilarity >= 0.1)) throw new RangeError('UserAttributeSimilarityValidator: maxSimilarity must be at least 0.1')
    this.maxSimilarity = maxSimilarity
    this.attributes = Object.freeze({ ...(options.attributes ?? DEFAULT_ATTRIBUTES) })
  }
  validate(password: string, user: PasswordUser | null): readonly string[] {
    if (user === null) return []
    const lowered = [...password.toLowerCase()]
    for (const [attribute, verboseName] of Object.entries(this.attributes)) {
      const value = (user as Readonly<Record<string, unknown>>)[attribute]
      if (typeof value !== 'string' || value === '') continue
      const valueLower = value.toLowerCase()
      for (const part of [...valueLower.split(NON_WORD), valueLower]) {
        const partChars = [...part]
        // Django's shortcut (exceeds_maximum_length_ratio): a password ten times longer than the
        // part cannot reach the ratio, so the comparison is skipped. Kept for identical answers.
        if (lowered.length >= 10 * partChars.length && partChars.length < (this.maxSimilarity / 2) * lowered.length) continue
        if (quickRatio(lowered, partChars) >= this.maxSimilarity) return [`The password is too similar to the ${verboseName}.`]
      }
    }
    return []
  }
  helpText(): string {
    return 'Your password can’t be too similar to your other personal information.'
  }
}

/** Python's `str.strip()` whitespace (`str.isspace`), which differs from JavaScript's `trim` in a few characters. */
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+'
const PY_STRIP = new RegExp(`^${PY_SPACE}|${PY_SPACE}$`, 'gu')

let djangoList: Promise<ReadonlySet<string>> | undefined

function djangoCommonPasswords(): Promise<ReadonlySet<string>> {
  djangoList ??= import('./common-passwords.js').then(({ COMMON_PASSWORDS }) => new Set(COMMON_PASSWORDS.split('\n')))
  return djangoList
}

/**
 * Django's `CommonPasswordValidator`: refuses a password on a list of common ones, compared
 * lowercased and stripped of surrounding spaces. The default list is Django's own (its 20,000
 * most common passwords, BSD-3-Clause, shipped with gatehouse and loaded on first use).
 */
export class CommonPasswordValidator implements PasswordValidator {
  readonly #passwords: Promise<ReadonlySet<string>> | ReadonlySet<string> | undefined
  /** @param options.passwords your own list instead of Django's (lowercase, as Django requires of its file). */
  constructor(options: { readonly passwords?: Iterable<string> } = {}) {
    this.#passwords = options.passwords === undefined ? undefined : new Set([...options.passwords].map((p) => p.replace(PY_STRIP, '')))
  }
  async validate(password: string): Promise<readonly string[]> {
    const passwords = await (this.#passwords ?? djangoCommonPasswords())
    return passwords.has(password.toLowerCase().replace(PY_STRIP, '')) ? ['This password is too common.'] : []
  }
  helpText(): string {
    return 'Your password can’t be a commonly used password.'
  }
}

/**
 * Python's `str.isdigit()`: decimal digits (`\p{Nd}`) and the characters Unicode gives the
 * numeric type "Digit" (superscripts, circled digits…), listed here from Unicode 14.
 */
const PY_DIGITS =
  /^[\p{Nd}\u{B2}-\u{B3}\u{B9}\u{1369}-\u{1371}\u{19DA}\u{2070}\u{2074}-\u{2079}\u{2080}-\u{2089}\u{2460}-\u{2468}\u{2474}-\u{247C}\u{2488}-\u{2490}\u{24EA}\u{24F5}-\u{24FD}\u{24FF}\u{2776}-\u{277E}\u{2780}-\u{2788}\u{278A}-\u{2792}\u{10A40}-\u{10A43}\u{10E60}-\u{10E68}\u{11052}-\u{1105A}\u{1F100}-\u{1F10A}]+$/u

/** Django's `NumericPasswordValidator`: refuses a password made of digits only. */
export class NumericPasswordValidator implements PasswordValidator {
  validate(password: string): readonly string[] {
    return PY_DIGITS.test(password) ? ['This password is entirely numeric.'] : []
  }
  helpText(): string {
    return 'Your password can’t be entirely numeric.'
  }
}

/**
 * Django's default `AUTH_PASSWORD_VALIDATORS` (the project template's), in its order: similarity
 * to the user's attributes, at least 8 characters, not a common password, not all digits.
 */
export function defaultPasswordValidators(): readonly PasswordValidator[] {
  return Object.freeze([new UserAttributeSimilarityValidator(), new MinimumLengthValidator(), new CommonPasswordValidator(), new NumericPasswordValidator()])
}

/**
 * Django's `validate_password`: runs every validator and answers all their messages, in order
 * (empty: the password is accepted). `user` is the account the password is for (`null` before
 * it exists: the similarity check then has nothing to compare, as in Django).
 *
 * @example
 * const problems = await validatePassword(body.password, { username: body.username })
 * if (problems.length > 0) throw new ValidationError({ password: [...problems] })
 */
export async function validatePassword(password: string, user: PasswordUser | null, validators: readonly PasswordValidator[] = defaultPasswordValidators()): Promise<string[]> {
  const messages: string[] = []
  for (const validator of validators) messages.push(...(await validator.validate(password, user)))
  return messages
}

/** Every validator's help text (Django's `password_validators_help_texts`). */
export function passwordValidatorsHelpTexts(validators: readonly PasswordValidator[] = defaultPasswordValidators()): string[] {
  return validators.map((validator) => validator.helpText())
}
