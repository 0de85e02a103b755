import { NotAcceptable } from '../errors.js'

/** A response format a view can render. */
export type Format = 'json' | 'html'

const MEDIA_TYPES: Readonly<Record<Format, string>> = { json: 'application/json', html: 'text/html' }

/** One media range of an Accept header, parsed as DRF's `_MediaType` does. */
interface MediaRange {
  readonly mainType: string
  readonly subType: string
  /** 3: parameters other than q; 2: a full type; 1: `type/*`; 0: `*` main type. */
  readonly precedence: 0 | 1 | 2 | 3
}

function parseRange(token: string): MediaRange {
  const [fullType = '', ...params] = token.split(';')
  const type = fullType.trim().toLowerCase()
  const slash = type.indexOf('/')
  const mainType = slash === -1 ? type : type.slice(0, slash)
  const subType = slash === -1 ? '' : type.slice(slash + 1)
  const names = params
    .map((p) => (p.split('=')[0] ?? '').trim().toLowerCase())
    .filter((name) => name !== '')
  const precedence = mainType === '*' ? 0 : subType === '*' ? 1 : names.every((n) => n === 'q') ? 2 : 3
  return { mainType, subType, precedence }
}

/** DRF's `_MediaType.match`, a renderer's type against a client's range (the renderers have no parameters). */
function matches(format: Format, range: MediaRange): boolean {
  const [mainType = '', subType = ''] = MEDIA_TYPES[format].split('/')
  if (range.subType !== '*' && range.subType !== subType) return false
  if (range.mainType !== '*' && range.mainType !== mainType) return false
  return true
}

/**
 * Picks the format for a request exactly as DRF's `DefaultContentNegotiation`:
 * a missing Accept means `*∕*`; the ranges are grouped by precedence (ranges with
 * parameters, full types, `type/*`, `*∕*`) and, most specific group first, the view's
 * formats are tried in order. `q` only counts as a parameter that lowers nothing:
 * DRF ignores quality values (even `q=0`). Nothing matching, including an empty or
 * malformed Accept header, is `NotAcceptable` (406).
 */
export function negotiateFormat(accept: string | null, formats: readonly Format[]): Format {
  const ranges = (accept ?? '*/*').split(',').map(parseRange)
  for (const precedence of [3, 2, 1, 0] as const) {
    const group = ranges.filter((r) => r.precedence === precedence)
    if (group.length === 0) continue
    const hit = formats.find((format) => group.some((range) => matches(format, range)))
    if (hit !== undefined) return hit
  }
  throw new NotAcceptable()
}

export { MEDIA_TYPES }
