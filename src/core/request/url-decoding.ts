import { ParseError } from '../errors.js'

// `ignoreBOM`: a leading U+FEFF is a character the client sent (Python's decode keeps it), not a mark to drop.
const UTF8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true })

/**
 * The most fields a form body may hold: Django's `DATA_UPLOAD_MAX_NUMBER_FIELDS` default.
 * Past it the body is refused before it is decoded, so a 200,000-pair form costs a scan of
 * its first thousand `&` rather than 200,000 decoded pairs.
 */
export const DEFAULT_MAX_FORM_FIELDS = 1000

/**
 * Django's `TooManyFieldsSent` as a JSON 400 (Django and DRF answer an HTML "Bad Request (400)" page).
 */
export function tooManyFields(maxFields: number): ParseError {
  return new ParseError(`The number of form fields exceeded the limit of ${maxFields}.`, 'too_many_fields')
}

const ENCODER = new TextEncoder()

/**
 * `+` to space over the UTF-8 bytes. (`String#replaceAll` builds one piece per match:
 * a megabyte of `+` took ~90 ms; this loop takes ~2.) Lone surrogates become U+FFFD,
 * as URLSearchParams makes them.
 */
function plusToSpace(text: string): string {
  const bytes = ENCODER.encode(text)
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x2b) bytes[i] = 0x20
  return UTF8.decode(bytes)
}

/** `%XX` runs as UTF-8 bytes; broken escapes stay literal. */
function unquote(plain: string): string {
  if (!plain.includes('%')) return plain
  // Each run of escapes is one byte string; the pattern cannot backtrack (fixed-width items).
  return plain.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = new Uint8Array(run.length / 3)
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16)
    return UTF8.decode(bytes)
  })
}

/**
 * A request path as Django routes it (WSGI's `PATH_INFO`): every `%XX` run decoded as
 * UTF-8 (`%2F` becomes a `/` too), broken escapes left literal. Linear in the path.
 */
export function unquotePath(path: string): string {
  return unquote(path)
}

/**
 * The path of a request target as the client sent it: `/a/./b?q` → `/a/./b` (no dot segment
 * resolved). Your adapter uses it for the path to match routes on (`matchRoutes` decodes it
 * itself) and the path to name in a log line.
 */
export function targetPath(target: string): string {
  const end = target.search(/[?#]/)
  return end === -1 ? target : target.slice(0, end)
}

/**
 * A request path (`targetPath`'s) for a router that percent-decodes once more itself
 * (Fastify's find-my-way, Hono's router): what your adapter hands such a router so it routes as
 * Django does. Decoded as Django decodes it (`unquotePath`, so `%2F` is a `/` and routes
 * as one), then `%`, `?` and `#` escaped again so the router's own decoding gives back exactly
 * that path and a decoded `?` never starts a query. Dot segments stay as sent. Linear.
 */
export function routingPath(path: string): string {
  if (!path.includes('%')) return path
  let out = ''
  for (const ch of unquotePath(path)) out += ch === '%' ? '%25' : ch === '?' ? '%3F' : ch === '#' ? '%23' : ch
  return out
}

const URI_PATH_SAFE = /[A-Za-z0-9/:@&+$,\-_.!~*'()]/

/**
 * Django's `escape_uri_path(unquotePath(path))`: the path a Django view sees, escaped again
 * for a URL (what `build_absolute_uri`, and so DRF's page links, show). `/api/who%61mi/` and
 * `/api%2Fwhoami/` are both `/api/whoami/`; `é` is `%C3%A9`. Linear.
 */
export function djangoPath(path: string): string {
  if (!path.includes('%')) return path
  let out = ''
  for (const ch of unquotePath(path)) {
    if (URI_PATH_SAFE.test(ch)) out += ch
    else for (const byte of ENCODER.encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Python's `unquote_plus`: `+` is a space, `%XX` are UTF-8 bytes, broken escapes stay literal. */
export function unquotePlus(text: string): string {
  return unquote(text.includes('+') ? plusToSpace(text) : text)
}

/**
 * Python's `parse_qs(query, keep_blank_values=True)`: `&`-separated pairs, a pair
 * without `=` has an empty value, keys keep first-appearance order, values their order.
 */
export function parseQuery(query: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  const text = query.startsWith('?') ? query.slice(1) : query
  for (const piece of text.split('&')) {
    if (piece === '') continue
    const eq = piece.indexOf('=')
    const key = unquotePlus(eq === -1 ? piece : piece.slice(0, eq))
    const value = unquotePlus(eq === -1 ? '' : piece.slice(eq + 1))
    const values = out.get(key)
    if (values === undefined) out.set(key, [value])
    else values.push(value)
  }
  return out
}

/**
 * An `application/x-www-form-urlencoded` body as `URLSearchParams` reads it (pairs split
 * on `&`, the first `=` separates name and value, a leading `?` ignored, the last of
 * duplicate names wins), decoded with native string operations: `URLSearchParams` walks
 * a megabyte of `+` at about 130 ms, this at a few.
 *
 * @param maxFields Django's `DATA_UPLOAD_MAX_NUMBER_FIELDS`: more `&`-separated pieces
 *   than this (empty ones count, as in Django's `limited_parse_qsl`) is a `ParseError`
 *   (400, code `too_many_fields`), found before anything is decoded. `Infinity`: no cap.
 * @throws ParseError when the body holds more than `maxFields` pieces.
 */
export function parseFormBody(text: string, maxFields: number = DEFAULT_MAX_FORM_FIELDS): Readonly<Record<string, string>> {
  const out: Record<string, string> = {}
  const stripped = text.startsWith('?') ? text.slice(1) : text
  // Count pieces first, stopping at the first one past the cap.
  let pieces = 1
  for (let at = stripped.indexOf('&'); at !== -1; at = stripped.indexOf('&', at + 1)) {
    if (++pieces > maxFields) throw tooManyFields(maxFields)
  }
  if (pieces > maxFields) throw tooManyFields(maxFields)
  // One pass over the whole body for `+` (and lone surrogates), then per-pair escapes.
  const body = plusToSpace(stripped)
  for (const pair of body.split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const name = unquote(eq === -1 ? pair : pair.slice(0, eq))
    const value = eq === -1 ? '' : unquote(pair.slice(eq + 1))
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true })
  }
  return Object.freeze(out)
}
