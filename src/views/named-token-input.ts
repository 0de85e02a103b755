import type { ApiRequest, RequestData } from '../core/api-request.js'
import { ValidationError } from '../core/errors.js'
import { isPythonSpace, pythonStrip } from '../core/python-strip.js'
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

/** True for Python `int()`'s plain form: an optional sign, then ASCII digits. */
function isIntegerText(text: string): boolean {
  let start = text.startsWith('+') || text.startsWith('-') ? 1 : 0
  if (start === text.length) return false
  for (; start < text.length; start += 1) {
    const code = text.charCodeAt(start)
    if (code < 0x30 || code > 0x39) return false
  }
  return true
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
  let text: string
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw)) return invalid
    text = raw.toFixed(0)
  } else if (typeof raw === 'string') {
    text = pythonStrip(dropDecimalZeros(raw))
  } else {
    return invalid
  }
  if (!isIntegerText(text)) return invalid
  const negative = text.startsWith('-')
  const digits = text.replace(/^[+-]/, '').replace(/^0+/, '')
  // Past 10 digits the value is out of range whatever the digits (and exact comparison needs no BigInt).
  const value = digits.length > 10 ? Infinity : Number(digits)
  if (negative || value < 1) return { errors: ['Ensure this value is greater than or equal to 1.'] }
  if (value > MAX_EXPIRES_IN) return { errors: [`Ensure this value is less than or equal to ${MAX_EXPIRES_IN}.`] }
  return { value }
}

/**
 * Validates the body of a token creation: `name` as DRF's `CharField(max_length=100)`,
 * `expires_in` as `parseExpiresIn`. Throws `ValidationError` (400) with every field's
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
  const expires = parseExpiresIn(Object.hasOwn(body, 'expires_in') ? body['expires_in'] : undefined)
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
  let start = 0
  while (start < param.length - 1 && param.charAt(start) === '0') start += 1
  const digits = param.slice(start)
  if (digits.length > 10 || !isIntegerText(digits) || !isAsciiDigit(digits.charCodeAt(0))) return null
  const id = Number(digits)
  return id >= 1 && id <= MAX_TOKEN_ID ? id : null
}

function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39
}
