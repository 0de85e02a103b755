import { DEFAULT_MAX_FORM_FIELDS, parseFormBody, tooManyFields } from './url-decoding.js'
import { ParseError, UnsupportedMediaType } from '../errors.js'
import { latin1Encode } from '../encoding/text.js'
import { findBytes } from './find-bytes.js'
import { decodeBodyText, parsePythonJson, PythonJsonError } from './python-json.js'
import type { RequestData } from '../api-request.js'

/** Media types the default parsers accept (DRF: JSONParser, FormParser, MultiPartParser). */
export const DEFAULT_PARSED_MEDIA_TYPES: readonly string[] = [
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]

/** The `charset` parameter of a Content-Type (Django's `request.encoding`), or `null`. */
function charsetOf(contentType: string): string | null {
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=')
    if (eq !== -1 && param.slice(0, eq).trim().toLowerCase() === 'charset') {
      return param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1')
    }
  }
  return null
}

function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase()
}

/**
 * True when `contentType` is a form (urlencoded or multipart): DRF then hands fields a
 * `QueryDict`, whose blank values a nullable field reads as `null` (`Field.get_value`).
 */
export function isFormMediaType(contentType: string | null): boolean {
  const mediaType = contentType === null ? '' : mediaTypeOf(contentType)
  return mediaType === 'application/x-www-form-urlencoded' || mediaType === 'multipart/form-data'
}

/** Options for `parseBody`. */
export interface ParseBodyOptions {
  /**
   * Django's `DATA_UPLOAD_MAX_NUMBER_FIELDS`: the most fields an urlencoded body, or parts
   * a multipart body (files included), may hold; past it, 400 `{"detail": "The number of
   * form fields exceeded the limit of N."}` before the body is decoded. `Infinity`: no cap.
   * @default 1000
   */
  readonly maxFormFields?: number
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false
  return true
}

/**
 * The number of parts of a multipart body is more than `max`: counts boundary delimiters
 * (`--boundary` at the start or after CRLF) and stops at the first one past the cap.
 * An unusable boundary counts nothing (the form parser then reports the body as malformed).
 */
function tooManyParts(contentType: string, raw: Uint8Array, max: number): boolean {
  const param = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  const boundary = param?.[1] ?? param?.[2]
  if (boundary === undefined || !Number.isFinite(max)) return false
  const delimiter = latin1Encode(`\r\n--${boundary}`)
  // The first delimiter may open the body without the CRLF; the last one closes it.
  let delimiters = startsWith(raw, delimiter.subarray(2)) ? 1 : 0
  for (let at = findBytes(raw, delimiter); at !== -1; at = findBytes(raw, delimiter, at + delimiter.length)) {
    // n parts have n + 1 delimiters (the closing `--boundary--` included).
    if (++delimiters > max + 1) return true
  }
  return false
}

/**
 * Parses a raw request body with DRF's rules and messages:
 * any JSON value (as DRF keeps it; views validate the shape), urlencoded and multipart forms.
 * An empty body is `null`. Unknown media types are 415; malformed JSON is 400; a form with
 * more than `options.maxFormFields` fields (default 1000, Django's) is 400.
 */
export async function parseBody(contentType: string | null, raw: Uint8Array | null, options: ParseBodyOptions = {}): Promise<RequestData> {
  const maxFields = options.maxFormFields ?? DEFAULT_MAX_FORM_FIELDS
  if (raw === null || raw.byteLength === 0) return null
  const mediaType = mediaTypeOf(contentType ?? '')
  if (mediaType === 'application/json') {
    // DRF's JSONParser on CPython: the same acceptance and the same error texts.
    try {
      return parsePythonJson(decodeBodyText(raw, charsetOf(contentType ?? ''))) as RequestData
    } catch (error) {
      if (error instanceof PythonJsonError) throw new ParseError(`JSON parse error - ${error.message}`)
      throw error
    }
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    return parseFormBody(new TextDecoder('utf-8', { ignoreBOM: true }).decode(raw), maxFields)
  }
  if (mediaType === 'multipart/form-data') {
    if (tooManyParts(contentType ?? '', raw, maxFields)) throw tooManyFields(maxFields)
    try {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType ?? '' } }).formData()
      const fields: Record<string, unknown> = {}
      for (const [key, value] of form.entries()) if (typeof value === 'string') fields[key] = value
      return Object.freeze(fields)
    } catch (error) {
      throw new ParseError(`Multipart form parse error - ${(error as Error).message}`)
    }
  }
  // DRF names the whole header (`request.content_type`, parameters included): `"text/plain; charset=utf-8"`.
  throw new UnsupportedMediaType(contentType === null ? '' : contentType.trim())
}
