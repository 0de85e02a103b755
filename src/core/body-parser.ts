import { ParseError, UnsupportedMediaType } from './errors.js'
import type { RequestData } from './api-request.js'

/** Media types the default parsers accept (DRF: JSONParser, FormParser, MultiPartParser). */
export const DEFAULT_PARSED_MEDIA_TYPES: readonly string[] = [
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]

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
    const text = new TextDecoder('utf-8', { fatal: false }).decode(raw)
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new ParseError(`JSON parse error - ${(error as Error).message}`)
    }
    return value as RequestData
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    const params = new URLSearchParams(new TextDecoder().decode(raw))
    return Object.freeze(Object.fromEntries(params.entries()))
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
