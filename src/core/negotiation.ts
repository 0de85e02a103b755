import { NotAcceptable } from './errors.js'

/** A response format a view can render. */
export type Format = 'json' | 'html'

const MEDIA_TYPES: Readonly<Record<Format, string>> = { json: 'application/json', html: 'text/html' }

interface AcceptItem {
  readonly type: string
  readonly subtype: string
  readonly q: number
  readonly specificity: number
  readonly index: number
}

function parseAccept(header: string): AcceptItem[] {
  const items: AcceptItem[] = []
  header.split(',').forEach((part, index) => {
    const [range = '', ...params] = part.split(';').map((p) => p.trim())
    const [type, subtype] = range.toLowerCase().split('/')
    if (!type || !subtype) return
    let q = 1
    for (const param of params) {
      const [k, v] = param.split('=').map((x) => x.trim())
      if (k === 'q' && v !== undefined) {
        const n = Number(v)
        q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 1
      }
    }
    const specificity = type === '*' ? 0 : subtype === '*' ? 1 : 2 + (params.filter((p) => !p.startsWith('q=')).length > 0 ? 1 : 0)
    items.push({ type, subtype, q, specificity, index })
  })
  return items
}

function matches(item: AcceptItem, format: Format): boolean {
  const [type, subtype] = MEDIA_TYPES[format].split('/')
  return (item.type === '*' || item.type === type) && (item.subtype === '*' || item.subtype === subtype)
}

/**
 * Picks the format for a request, DRF style: the client's most specific,
 * highest-quality media range that a renderer of the view serves; the view's
 * first format for a missing Accept or a wildcard. Throws `NotAcceptable` (406).
 */
export function negotiateFormat(accept: string | null, formats: readonly Format[]): Format {
  const first = formats[0] ?? 'json'
  if (accept === null || accept.trim() === '') return first
  const items = parseAccept(accept)
    .filter((i) => i.q > 0)
    .sort((a, b) => b.specificity - a.specificity || b.q - a.q || a.index - b.index)
  if (items.length === 0) return first
  // DRF walks precedence groups (most specific first) and, inside each, the renderers in order.
  for (const item of items) {
    if (item.type === '*' || item.subtype === '*') {
      const hit = formats.find((f) => matches(item, f))
      if (hit !== undefined) return hit
      continue
    }
    const hit = formats.find((f) => matches(item, f))
    if (hit !== undefined) return hit
  }
  throw new NotAcceptable()
}

export { MEDIA_TYPES }
