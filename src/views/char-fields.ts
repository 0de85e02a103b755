import type { ApiRequest, RequestData } from '../core/api-request.js'
import { ValidationError } from '../core/errors.js'
import { pythonStrip } from '../core/request/python-strip.js'

/** How one string field of a request body is validated (DRF `CharField`'s options). */
export interface CharFieldOptions {
  /** Strip leading and trailing whitespace before use (and before the blank check). @default true */
  readonly trimWhitespace?: boolean
  /** Accept `""` (after trimming). @default false */
  readonly allowBlank?: boolean
}

/** The validated values: one string per field. Every field is required and non-null. */
export type CharFieldValues<K extends string> = { [P in K]: string }

/** The key DRF uses for errors that belong to no single field (`NON_FIELD_ERRORS_KEY`). */
export const NON_FIELD_ERRORS_KEY = 'non_field_errors'

// With the u flag only *lone* surrogates match: a valid pair is one code point (as in Python).
const SURROGATE = /[\ud800-\udfff]/u

/** Python's `str.strip()` (DRF trims with Python's whitespace rules, not `String#trim()`'s). */
export { pythonStrip }

/** The Python type name DRF puts in "Expected a dictionary, but got <type>." */
function pythonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'list'
  if (typeof value === 'string') return 'str'
  if (typeof value === 'boolean') return 'bool'
  // JSON.parse cannot tell 1.0 from 1; an integral value reads as Python's int.
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float'
  return typeof value
}

/** DRF's CharField.to_internal_value: numbers become strings, booleans and composites are refused. */
function toText(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return null
}

/** Runs one field's checks in DRF's order; returns the value or the field's error list. */
function validateField(
  present: boolean,
  raw: unknown,
  options: CharFieldOptions,
): { readonly value: string } | { readonly errors: readonly string[] } {
  const trim = options.trimWhitespace ?? true
  if (!present) return { errors: ['This field is required.'] }
  // DRF tests for blank before anything else (on the string form of the value).
  if (raw === '' || (trim && typeof raw === 'string' && pythonStrip(raw) === '')) {
    return options.allowBlank === true ? { value: '' } : { errors: ['This field may not be blank.'] }
  }
  if (raw === null) return { errors: ['This field may not be null.'] }
  const text = toText(raw)
  if (text === null) return { errors: ['Not a valid string.'] }
  const value = trim ? pythonStrip(text) : text
  // DRF's two default CharField validators run together, so both messages may appear.
  const errors: string[] = []
  if (value.includes('\u0000')) errors.push('Null characters are not allowed.')
  const surrogate = SURROGATE.exec(value)?.[0]
  if (surrogate !== undefined) {
    const code = surrogate.charCodeAt(0).toString(16).toUpperCase()
    errors.push(`Surrogate characters are not allowed: U+${code}.`)
  }
  return errors.length > 0 ? { errors } : { value }
}

/**
 * True unless the request declared a non-zero Content-Length. DRF reads a body only
 * then; otherwise it sees an empty form (every field "required"), while a JSON
 * `null` body it did read is "No data provided".
 */
function declaredEmpty(req: Pick<ApiRequest, 'headers'>): boolean {
  const length = Number(req.headers.get('content-length') ?? '0')
  return !(length > 0)
}

/**
 * Validates a parsed request body the way a DRF serializer made of `CharField`s does:
 * the body must be an object; each field is checked in the given order
 * (required, blank, null, "Not a valid string.", null and surrogate characters);
 * numbers become strings; whitespace is trimmed unless `trimWhitespace: false`.
 * Throws `ValidationError` (400) with `{"<field>": ["<message>", ...]}` in field order,
 * or `{"non_field_errors": [...]}` for a body that is not an object.
 *
 * @param data the parsed body (`await req.body()`); `null` for an empty body
 * @param req pass the request to tell a JSON `null` body ("No data provided") from an empty one
 *
 * @example
 * const { username, password } = validateCharFields(await req.body(), {
 *   username: {},
 *   password: { trimWhitespace: false },
 * })
 */
export function validateCharFields<K extends string>(
  data: RequestData,
  fields: Readonly<Record<K, CharFieldOptions>>,
  req?: Pick<ApiRequest, 'headers'>,
): CharFieldValues<K> {
  if (data === null || data === undefined) {
    if (req !== undefined && !declaredEmpty(req)) {
      throw new ValidationError({ [NON_FIELD_ERRORS_KEY]: ['No data provided'] })
    }
    data = {}
  }
  if (typeof data !== 'object' || Array.isArray(data) || data === null) {
    throw new ValidationError({
      [NON_FIELD_ERRORS_KEY]: [`Invalid data. Expected a dictionary, but got ${pythonTypeName(data)}.`],
    })
  }
  const body = data as Readonly<Record<string, unknown>>
  const values: Record<string, string> = {}
  const errors: Record<string, readonly string[]> = {}
  for (const name of Object.keys(fields) as K[]) {
    const present = Object.hasOwn(body, name)
    const result = validateField(present, present ? body[name] : undefined, fields[name])
    if ('errors' in result) errors[name] = result.errors
    else values[name] = result.value
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return values as CharFieldValues<K>
}
