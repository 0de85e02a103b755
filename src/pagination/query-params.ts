/**
 * DRF's query-string helpers (`rest_framework/utils/urls.py` and `_positive_int`),
 * reproduced byte for byte because clients see their output in next/previous links.
 */

import { isPythonIntSpace, stripWith } from '../core/request/python-strip.js'
import { parseQuery, unquotePlus } from '../core/request/url-decoding.js'

export { parseQuery, unquotePlus }

const SAFE = /[A-Za-z0-9_.\-~]/

/**
 * The last query parsed, by URL object (a URL's search can be reassigned: the text is kept to
 * compare): a request's parameters are read one after another (a filter, the page, the page
 * size), so one entry serves them without a weak-map entry per request.
 */
let lastParsed: { readonly url: URL; readonly search: string; readonly params: ReadonlyMap<string, readonly string[]> } | null = null
const ALL_SAFE = /^[A-Za-z0-9_.\-~]*$/

/** Python's `quote_plus(value, safe='')`, as `urlencode` applies it. */
export function quotePlus(text: string): string {
  // Cursors and page numbers are all safe characters: nothing to escape.
  if (ALL_SAFE.test(text)) return text
  let out = ''
  for (const ch of text) {
    if (ch === ' ') out += '+'
    else if (SAFE.test(ch)) out += ch
    else for (const byte of new TextEncoder().encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Django's `QueryDict.get`: the *last* value of `key`, or `null` when absent. */
export function queryParam(url: URL, key: string): string | null {
  const search = url.search
  let query = lastParsed
  if (query === null || query.url !== url || query.search !== search) query = lastParsed = { url, search, params: parseQuery(search) }
  const values = query.params.get(key)
  return values === undefined ? null : (values[values.length - 1] ?? null)
}

/** The absolute URL as DRF's `build_absolute_uri()` sees it: origin, path and the query as received. */
export function absoluteUrl(url: URL): string {
  // An http(s) URL without credentials or fragment is its own `href` (kept by the URL: no new string).
  const href = url.href
  if ((href.startsWith('http://') || href.startsWith('https://')) && url.username === '' && url.password === '' && url.hash === '') return href
  return `${url.origin}${url.pathname}${url.search}`
}

function rebuild(url: string, edit: (query: Map<string, string[]>) => void): string {
  const hash = url.indexOf('#')
  const bare = hash === -1 ? url : url.slice(0, hash)
  const q = bare.indexOf('?')
  const base = q === -1 ? bare : bare.slice(0, q)
  const query = parseQuery(q === -1 ? '' : bare.slice(q + 1))
  edit(query)
  // urlencode(sorted(items), doseq=True): keys by code point, multi-values in order.
  const keys = [...query.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const pairs: string[] = []
  for (const key of keys) for (const value of query.get(key) ?? []) pairs.push(`${quotePlus(key)}=${quotePlus(value)}`)
  return pairs.length === 0 ? base : `${base}?${pairs.join('&')}`
}

/** DRF's `replace_query_param`: `key` set to one value, the query re-encoded with keys sorted. */
export function replaceQueryParam(url: string, key: string, value: string | number | bigint): string {
  return rebuild(url, (query) => query.set(key, [String(value)]))
}

/**
 * `replaceQueryParam(url, key, value)` for several values of one `key` (a cursor
 * page's next and previous links): the URL is parsed and sorted once.
 */
export function queryParamReplacer(url: string, key: string): (value: string) => string {
  const hash = url.indexOf('#')
  const bare = hash === -1 ? url : url.slice(0, hash)
  const q = bare.indexOf('?')
  const base = q === -1 ? bare : bare.slice(0, q)
  const query = parseQuery(q === -1 ? '' : bare.slice(q + 1))
  query.set(key, [''])
  const keys = [...query.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const before: string[] = []
  const after: string[] = []
  let seen = false
  for (const k of keys) {
    if (k === key) seen = true
    else for (const value of query.get(k) ?? []) (seen ? after : before).push(`${quotePlus(k)}=${quotePlus(value)}`)
  }
  const head = `${base}?${before.map((pair) => `${pair}&`).join('')}${quotePlus(key)}=`
  const tail = after.map((pair) => `&${pair}`).join('')
  return (value) => `${head}${quotePlus(value)}${tail}`
}

/**
 * One URL's query split around `key`, once: `replace(value)` is
 * `replaceQueryParam(url, key, value)` and `remove()` is `removeQueryParam(url, key)`, without
 * parsing and sorting the query again for each link of a page.
 */
export interface QueryParamTemplate {
  replace(value: string | number | bigint): string
  remove(): string
}

/** A `QueryParamTemplate` as strings: `head + quoted value + tail`, and the URL without the key. */
class SplitQuery implements QueryParamTemplate {
  constructor(
    private readonly head: string,
    private readonly tail: string,
    private readonly removed: string,
  ) {}

  replace(value: string | number | bigint): string {
    return `${this.head}${quotePlus(String(value))}${this.tail}`
  }

  remove(): string {
    return this.removed
  }
}

export function queryParamTemplate(url: string, key: string): QueryParamTemplate {
  const hash = url.indexOf('#')
  const bare = hash === -1 ? url : url.slice(0, hash)
  const q = bare.indexOf('?')
  const base = q === -1 ? bare : bare.slice(0, q)
  const quotedKey = quotePlus(key)
  // Nothing but `key` (or nothing at all) in the query: the common `?page=N`, without parsing it.
  if (q === -1 || onlyKey(bare, q + 1, key)) return new SplitQuery(`${base}?${quotedKey}=`, '', base)
  const query = parseQuery(bare.slice(q + 1))
  query.delete(key)
  if (query.size === 0) return new SplitQuery(`${base}?${quotedKey}=`, '', base)
  const keys = [...query.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const before: string[] = []
  const after: string[] = []
  for (const k of keys) for (const value of query.get(k) ?? []) (k < key ? before : after).push(`${quotePlus(k)}=${quotePlus(value)}`)
  const head = `${base}?${before.map((pair) => `${pair}&`).join('')}${quotedKey}=`
  const tail = after.map((pair) => `&${pair}`).join('')
  const removed = `${base}?${[...before, ...after].join('&')}`
  return new SplitQuery(head, tail, removed)
}

/**
 * True when the query `text.slice(from)` is one `key=<value>` pair and nothing else, with a
 * key of safe characters (what `parseQuery` would read as that key alone).
 */
function onlyKey(text: string, from: number, key: string): boolean {
  if (!text.startsWith(key, from) || text.charCodeAt(from + key.length) !== 0x3d /* = */) return false
  return text.indexOf('&', from) === -1 && ALL_SAFE.test(key)
}

/** DRF's `remove_query_param`: `key` dropped, the query re-encoded with keys sorted. */
export function removeQueryParam(url: string, key: string): string {
  return rebuild(url, (query) => query.delete(key))
}

const DIGIT = /^\p{Nd}$/u

/** The value of one Unicode decimal digit (Python's `int()` accepts every `Nd` script). */
function digitValue(ch: string): number {
  const code = ch.codePointAt(0) ?? 0
  if (code >= 0x30 && code <= 0x39) return code - 0x30
  // Nd digits come in contiguous runs of ten starting at zero: count back to the run's start.
  let k = 0
  while (k < 60 && DIGIT.test(String.fromCodePoint(code - k - 1))) k++
  return k % 10
}

const PY_INT = /^[+-]?\p{Nd}+(?:_\p{Nd}+)*$/u

function isAsciiDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x30 || code > 0x39) return false
  }
  return true
}

/**
 * Python's `int(text)` for a base-10 string: surrounding whitespace (what CPython's `int()`
 * skips: `str.isspace()`'s set without U+001C–U+001F, so U+0085 but not U+FEFF, unlike
 * `String#trim()`), a sign,
 * `_` between digits and any Unicode decimal digits are accepted. `null` when Python
 * would raise `ValueError`. A `bigint`, so huge offsets stay exact in links.
 */
export function parsePythonInt(text: string): bigint | null {
  const trimmed = stripWith(text, isPythonIntSpace)
  // The usual page number or size: a few ASCII digits, read at once.
  if (trimmed.length > 0 && trimmed.length <= 15 && isAsciiDigits(trimmed)) return BigInt(trimmed)
  if (trimmed.length > 4300 || !PY_INT.test(trimmed)) return null
  let value = 0n
  let sign = 1n
  for (const ch of trimmed) {
    if (ch === '-') sign = -1n
    else if (ch === '+' || ch === '_') continue
    else value = value * 10n + BigInt(digitValue(ch))
  }
  return sign * value
}

/**
 * DRF's `_positive_int`: Python `int()`, negative rejected, zero rejected when
 * `strict`, clamped to a truthy `cutoff`. Returns `null` where DRF raises.
 */
export function parsePositiveInt(text: string, strict = false, cutoff: number | null = null): bigint | null {
  const value = parsePythonInt(text)
  if (value === null || value < 0n || (strict && value === 0n)) return null
  if (cutoff !== null && cutoff > 0 && value > BigInt(cutoff)) return BigInt(cutoff)
  return value
}

/** A bigint that fits a page size or limit, as a number (sizes beyond 2^53 are clamped, never trusted). */
export function toSafeNumber(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value)
}
