import { parseFormBody } from './url-decoding.js'
import { ParseError, UnsupportedMediaType } from './errors.js'
import { decodeBodyText, parsePythonJson, PythonJsonError } from './python-json.js'
import type { RequestData } from './api-request.js'

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
 * Parses a raw request body with DRF's rules and messages:
 * any JSON value (as DRF keeps it; views validate the shape), urlencoded and multipart forms.
 * An empty body is `null`. Unknown media types are 415; malformed JSON is 400.
 */
export async function parseBody(contentType: string | null, raw: Uint8Array | null): Promise<RequestData> {
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
    return parseFormBody(new TextDecoder().decode(raw))
  }
  if (mediaType === 'multipart/form-data') {
    try {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType ?? '' } }).formData()
      const fields: Record<string, unknown> = {}
      for (const [key, value] of form.entries()) if (typeof value === 'string') fields[key] = value
      return Object.freeze(fields)
    } catch (error) {
      throw new ParseError(`Multipart form parse error - ${(error as Error).message}`)
    }
  }
  throw new UnsupportedMediaType(contentType === null || contentType === '' ? '' : (contentType.split(';')[0] ?? '').trim())
}
