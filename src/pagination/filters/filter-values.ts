import { pythonStrip } from '../../core/request/python-strip.js'
import { exceedsNumberFilterMax, parsePyDecimal, toFloat, truncateToSafeInteger } from './python-decimal.js'
import { parseDjangoDateTime, type DjangoDateTime } from './parse-datetime.js'

/**
 * The type of a filtered field, which decides how a value is read (as django-filter's
 * filter for the model field does): `integer` (an `IntegerField`: `NumberFilter`, the
 * number truncated toward zero as Django's lookup does), `number` (a `FloatField`),
 * `text` (`CharFilter`: stripped), `boolean` (`BooleanFilter`: `true`/`1`/`false`/`0`,
 * anything else no filter), `datetime` (`IsoDateTimeFilter`), `choice` (`ChoiceFilter`).
 */
export type FilterType = 'integer' | 'number' | 'text' | 'boolean' | 'datetime' | 'choice'

/** The JavaScript value of each filter type. */
export interface FilterTypeValues {
  integer: number
  number: number
  text: string
  boolean: boolean
  datetime: Date
  choice: string
}

/** A read value: the value, no value (the filter does not apply) or Django's error messages. */
export type ReadValue<V> = { readonly value: V; readonly micros?: number } | { readonly absent: true } | { readonly errors: readonly string[] }

const ABSENT = { absent: true } as const
const ENTER_A_NUMBER = 'Enter a number.'

/** Django's `DecimalField` plus django-filter's `MaxValueValidator(1e50)`. */
function readNumber(raw: string, integer: boolean): ReadValue<number> {
  const parsed = parsePyDecimal(raw)
  if (parsed === null || parsed.kind !== 'finite') return { errors: [ENTER_A_NUMBER] }
  if (exceedsNumberFilterMax(parsed)) return { errors: ['Ensure this value is less than or equal to 1e+50.'] }
  return { value: integer ? truncateToSafeInteger(parsed) : toFloat(parsed) }
}

/** Django's `CharField` (`strip=True`, `ProhibitNullCharactersValidator`). */
function readText(raw: string): ReadValue<string> {
  const value = pythonStrip(raw)
  if (value === '') return ABSENT
  if (value.includes('\0')) return { errors: ['Null characters are not allowed.'] }
  return { value }
}

/** django-filter's `BooleanWidget`: anything but these is no value (the filter does not apply). */
function readBoolean(raw: string): ReadValue<boolean> {
  const lower = raw.toLowerCase()
  if (lower === 'true' || lower === '1') return { value: true }
  if (lower === 'false' || lower === '0') return { value: false }
  return ABSENT
}

/** django-filter's `IsoDateTimeField`: `Enter a valid date/time.`. */
function readDateTime(raw: string): ReadValue<Date> {
  const parsed: DjangoDateTime | null = parseDjangoDateTime(raw)
  return parsed === null ? { errors: ['Enter a valid date/time.'] } : { value: new Date(parsed.epochMs), micros: parsed.extraMicros }
}

/** Django's `ChoiceField` (not stripped). */
function readChoice(raw: string, choices: readonly string[]): ReadValue<string> {
  return choices.includes(raw) ? { value: raw } : { errors: [`Select a valid choice. ${raw} is not one of the available choices.`] }
}

/**
 * One value of `type` as Django's form field cleans it (an empty string is no value). For
 * a date-time, `micros` holds the microseconds below the millisecond a `Date` cannot.
 */
export function readValue<K extends FilterType>(type: K, raw: string, choices: readonly string[] = []): ReadValue<FilterTypeValues[K]> {
  if (raw === '' && type !== 'boolean') return ABSENT
  let read: ReadValue<unknown>
  switch (type) {
    case 'integer':
    case 'number':
      read = readNumber(raw, type === 'integer')
      break
    case 'text':
      read = readText(raw)
      break
    case 'boolean':
      read = readBoolean(raw)
      break
    case 'datetime':
      read = readDateTime(raw)
      break
    default:
      read = readChoice(raw, choices)
  }
  return read as ReadValue<FilterTypeValues[K]>
}
