import type { ApiRequest, RequestData } from '../core/api-request.js'
import { isFormMediaType } from '../core/request/body-parser.js'
import { ValidationError } from '../core/errors.js'
import { isPythonSpace } from '../core/request/python-strip.js'
import { parsePythonInt } from '../pagination/query-params.js'
import { validateCharFields } from './char-fields.js'

/** Longest `expires_in` accepted: ten years, in seconds. */
export const MAX_EXPIRES_IN = 315_360_000
/** Longest token name (`gatehouse_named_tokens.name` is varchar(100)). */
export const MAX_TOKEN_NAME_LENGTH = 100
/** The largest token id (a PostgreSQL `serial`). */
const MAX_TOKEN_ID = 2_147_483_647

/** What `POST /tokens/` asks for, validated. */
export interface NewTokenInput {
  readonly name: string
  /** Seconds until the token expires; `null`: never. */
  readonly expiresIn: number | null
}

/** Drops what DRF's `re_decimal` (`\.0*\s*$`) drops, by scanning from the end (no regex over client input). */
function dropDecimalZeros(text: string): string {
  let end = text.length
  while (end > 0 && isPythonSpace(text.charCodeAt(end - 1))) end -= 1
  while (end > 0 && text.charAt(end - 1) === '0') end -= 1
  return end > 0 && text.charAt(end - 1) === '.' ? text.slice(0, end - 1) : text
}

/**
 * DRF's `IntegerField(min_value=1, max_value=MAX_EXPIRES_IN, allow_null=True)` for
 * `expires_in`: an integer, or a string of one (`"3600"`, `" 3600 "`, `"3600.0"`); `null` or
 * absent is no expiry. @returns the seconds, `null`, or the field's error messages
 */
export function parseExpiresIn(raw: unknown): { readonly value: number | null } | { readonly errors: readonly string[] } {
  if (raw === undefined || raw === null) return { value: null }
  const invalid = { errors: ['A valid integer is required.'] }
  if (typeof raw === 'string' && raw.length > 1000) return { errors: ['String value too large.'] }
  if (typeof raw === 'number' && !Number.isInteger(raw)) return invalid
  if (typeof raw !== 'number' && typeof raw !== 'string') return invalid
  // DRF: `int(re_decimal.sub('', str(data)))`, Python's int() (signs, `_`, any Unicode digits).
  const value = parsePythonInt(typeof raw === 'number' ? raw.toFixed(0) : dropDecimalZeros(raw))
  if (value === null) return invalid
  if (value < 1n) return { errors: ['Ensure this value is greater than or equal to 1.'] }
  if (value > BigInt(MAX_EXPIRES_IN)) return { errors: [`Ensure this value is less than or equal to ${MAX_EXPIRES_IN}.`] }
  return { value: Number(value) }
}

/**
 * Validates the body of a token creation: `name` as DRF's `CharField(max_length=100)`,
 * `expires_in` as `parseExpiresIn` (a blank form value is `null`, as DRF reads a form;
 * pass `req` so its Content-Type tells a form from JSON). Throws `ValidationError` (400) with every field's
 * errors, or `{"non_field_errors": [...]}` for a body that is not an object.
 */
export function validateNewToken(data: RequestData, req?: Pick<ApiRequest, 'headers'>): NewTokenInput {
  const errors: Record<string, readonly string[]> = {}
  let name = ''
  try {
    name = validateCharFields(data, { name: {} }, req).name
    if (name.length > MAX_TOKEN_NAME_LENGTH) errors['name'] = [`Ensure this field has no more than ${MAX_TOKEN_NAME_LENGTH} characters.`]
  } catch (error) {
    const detail = error instanceof ValidationError ? (error.detail as Readonly<Record<string, unknown>>) : null
    // Anything but a field error (a body that is not an object) is the whole answer.
    if (detail === null || !Array.isArray(detail['name'])) throw error
    errors['name'] = detail['name'] as readonly string[]
  }
  const body = (typeof data === 'object' && data !== null ? data : {}) as Readonly<Record<string, unknown>>
  const rawExpires = Object.hasOwn(body, 'expires_in') ? body['expires_in'] : undefined
  // DRF's Field.get_value: a blank form value of a nullable field is null (a JSON "" is not).
  const formBlank = rawExpires === '' && req !== undefined && isFormMediaType(req.headers.get('content-type'))
  const expires = parseExpiresIn(formBlank ? null : rawExpires)
  if ('errors' in expires) errors['expires_in'] = expires.errors
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return { name, expiresIn: 'value' in expires ? expires.value : null }
}

/**
 * A token id from the path, as Django's `<int:id>` converter reads it (ASCII digits only,
 * leading zeros allowed), or `null` when it is no id (the view answers 404).
 */
export function parseTokenId(param: string): number | null {
  if (param.length === 0) return null
  for (let i = 0; i < param.length; i += 1) {
    const code = param.charCodeAt(i)
    if (code < 0x30 || code > 0x39) return null
  }
  // Leading zeros are allowed; a run of digits too long for any id reads as a huge number.
  const id = Number(param)
  return id >= 1 && id <= MAX_TOKEN_ID ? id : null
}
