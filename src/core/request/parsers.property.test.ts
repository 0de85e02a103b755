import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseBody } from './body-parser.js'
import { isApiError } from '../errors.js'
import { negotiateFormat, type Format } from './negotiation.js'

// Header-like text: printable ASCII plus the separators negotiation splits on.
const headerText = fc.string({ unit: fc.constantFrom(...'ab*/;=,. qjsonhtmlextpplicaio0123456789\t-+'.split('')), maxLength: 60 })
const formatLists = fc.constantFrom<readonly Format[]>(['json'], ['json', 'html'], ['html', 'json'])

describe('negotiateFormat (property)', () => {
  it('returns one of the view formats or throws NotAcceptable (406), for any Accept header', () => {
    fc.assert(
      fc.property(fc.oneof(headerText, fc.string()), formatLists, (accept, formats) => {
        try {
          expect(formats).toContain(negotiateFormat(accept, formats))
        } catch (error) {
          expect(isApiError(error) && error.status === 406).toBe(true)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('serves JSON to any Accept that names application/json with a positive quality', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('text/plain', 'image/png', 'application/xml'), { maxLength: 3 }), (others) => {
        const accept = [...others, 'application/json'].join(', ')
        expect(negotiateFormat(accept, ['json'])).toBe('json')
      }),
    )
  })
})

const contentTypes = fc.oneof(
  fc.constant(null),
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=latin-1',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=xyz',
    'text/plain',
    'application/vnd.api+json',
    '',
  ),
  fc.string({ maxLength: 40 }),
)

describe('parseBody (property)', () => {
  it('parses or answers 400/415, never another error, for any content type and bytes', async () => {
    await fc.assert(
      fc.asyncProperty(contentTypes, fc.uint8Array({ maxLength: 200 }), async (contentType, bytes) => {
        try {
          await parseBody(contentType, bytes)
        } catch (error) {
          expect(isApiError(error) && [400, 415].includes(error.status)).toBe(true)
        }
      }),
      { numRuns: 1500 },
    )
  })

  it('round-trips any JSON object sent as application/json', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 })), async (value) => {
        const bytes = new TextEncoder().encode(JSON.stringify(value))
        expect(await parseBody('application/json', bytes)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
      { numRuns: 300 },
    )
  })

  it('round-trips urlencoded form fields', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 12 })), async (fields) => {
        const bytes = new TextEncoder().encode(new URLSearchParams(fields).toString())
        const parsed = (await parseBody('application/x-www-form-urlencoded', bytes)) as Record<string, unknown>
        for (const [key, value] of Object.entries(fields)) expect(parsed[key]).toBe(value)
      }),
      { numRuns: 300 },
    )
  })

  it('keeps the last value of a repeated form key, as Django QueryDict.get', async () => {
    const parsed = await parseBody('application/x-www-form-urlencoded', new TextEncoder().encode('a=1&a=2'))
    expect(parsed).toEqual({ a: '2' })
  })
})
