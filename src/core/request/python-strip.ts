/**
 * Python's `str.strip()`, by index scanning: linear in the input. (The regex
 * `^[ws]+|[ws]+$` looks equivalent but retries the trailing alternative at every
 * position of an inner whitespace run, which is quadratic.)
 */

/** True for the characters Python's `str.isspace()` accepts (which differ from `String#trim()`'s). */
export function isPythonSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f)
  if (code < 0x85) return false
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  )
}

/**
 * True for the characters Python's `int()` skips around a number: `str.isspace()`'s set
 * without U+001C–U+001F. (CPython maps non-ASCII whitespace to a space, then skips ASCII
 * whitespace with `Py_ISSPACE`, which knows only space, tab, LF, VT, FF and CR:
 * `int('\x1c2')` is a ValueError, `int('\x852')` is 2.)
 */
export function isPythonIntSpace(code: number): boolean {
  return isPythonSpace(code) && (code < 0x1c || code > 0x1f)
}

/** Python's `str.strip()` with `isSpace` deciding what is whitespace. */
export function stripWith(value: string, isSpace: (code: number) => boolean): string {
  let start = 0
  let end = value.length
  while (start < end && isSpace(value.charCodeAt(start))) start++
  while (end > start && isSpace(value.charCodeAt(end - 1))) end--
  return start === 0 && end === value.length ? value : value.slice(start, end)
}

/** Python's `str.strip()`. */
export function pythonStrip(value: string): string {
  return stripWith(value, isPythonSpace)
}

/** True when `text` holds a run of more than `limit` ASCII digits (one pass). */
export function hasDigitRunLongerThan(text: string, limit: number): boolean {
  let run = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x30 && code <= 0x39) {
      if (++run > limit) return true
    } else {
      run = 0
    }
  }
  return false
}
