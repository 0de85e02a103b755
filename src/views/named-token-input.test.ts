import type { ApiRequest } from '../core/api-request.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { TokenAuthentication } from '../authentication/token-authentication.js'
import { ValidationError } from '../core/errors.js'
import type { TokenWithUser } from '../stores/token-store.js'
import { MAX_EXPIRES_IN, parseExpiresIn, parseTokenId, validateNewToken } from './named-token-input.js'

const MAX_ID = 2_147_483_647
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

function errorsOf(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    if (error instanceof ValidationError) return error.detail
    throw error
  }
  return null
}

describe('parseExpiresIn (DRF IntegerField, 1 to ten years, nullable)', () => {
  it.each([
    [undefined, { value: null }],
    [null, { value: null }],
    [3600, { value: 3600 }],
    ['3600', { value: 3600 }],
    [' 3600 ', { value: 3600 }],
    ['3600.000', { value: 3600 }],
    ['+7', { value: 7 }],
    ['007', { value: 7 }],
    [MAX_EXPIRES_IN, { value: MAX_EXPIRES_IN }],
    [0, { errors: ['Ensure this value is greater than or equal to 1.'] }],
    [-5, { errors: ['Ensure this value is greater than or equal to 1.'] }],
    ['-0', { errors: ['Ensure this value is greater than or equal to 1.'] }],
    ['-99999999999999999999', { errors: ['Ensure this value is greater than or equal to 1.'] }],
    [MAX_EXPIRES_IN + 1, { errors: [`Ensure this value is less than or equal to ${MAX_EXPIRES_IN}.`] }],
    ['99999999999999999999', { errors: [`Ensure this value is less than or equal to ${MAX_EXPIRES_IN}.`] }],
    [1.5, { errors: ['A valid integer is required.'] }],
    ['1.5', { errors: ['A valid integer is required.'] }],
    ['', { errors: ['A valid integer is required.'] }],
    ['1e3', { errors: ['A valid integer is required.'] }],
    // Python's int(), which DRF's IntegerField calls, reads any Unicode digits and `_` between digits.
    ['١٢', { value: 12 }],
    ['1_000', { value: 1000 }],
    ['1__0', { errors: ['A valid integer is required.'] }],
    [true, { errors: ['A valid integer is required.'] }],
    [[60], { errors: ['A valid integer is required.'] }],
    [{ s: 60 }, { errors: ['A valid integer is required.'] }],
    ['1'.repeat(1001), { errors: ['String value too large.'] }],
  ])('%j → %j', (raw, expected) => {
    expect(parseExpiresIn(raw)).toEqual(expected)
  })

  it('property: every integer in range is read back from a number, its text, and padded decimal text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_EXPIRES_IN }), fc.nat(3), (n, zeros) => {
        expect(parseExpiresIn(n)).toEqual({ value: n })
        expect(parseExpiresIn(String(n))).toEqual({ value: n })
        expect(parseExpiresIn(` ${'0'.repeat(zeros)}${n}.${'0'.repeat(zeros)} `)).toEqual({ value: n })
      }),
    )
  })

  it('property: any JSON value answers a value in range or error messages, never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.string(), fc.string({ unit: 'binary' })), (raw) => {
        const result = parseExpiresIn(raw)
        if ('value' in result) {
          expect(result.value === null || (Number.isInteger(result.value) && result.value >= 1 && result.value <= MAX_EXPIRES_IN)).toBe(true)
        } else {
          expect(result.errors.length).toBe(1)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('long adversarial input is read in one pass', () => {
    expect(parseExpiresIn(`1${'0'.repeat(999)}`)).toMatchObject({ errors: [expect.stringContaining('less than')] })
    expect(parseExpiresIn(`${' '.repeat(500)}${'0'.repeat(499)}`)).toMatchObject({ errors: expect.any(Array) })
  })
})

describe('parseTokenId (Django <int:id>)', () => {
  it.each([
    ['1', 1],
    ['0042', 42],
    [String(MAX_ID), MAX_ID],
    [String(MAX_ID + 1), null],
    ['0', null],
    ['000', null],
    ['', null],
    ['-1', null],
    ['+1', null],
    ['1.0', null],
    [' 1', null],
    ['1a', null],
    ['٣', null],
    ['9'.repeat(400), null],
  ])('%j → %j', (param, expected) => {
    expect(parseTokenId(param)).toBe(expected)
  })

  it('property: ids in range round-trip (with leading zeros too); any other string is null or an id in range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ID }), fc.nat(5), (id, zeros) => {
        expect(parseTokenId(String(id))).toBe(id)
        expect(parseTokenId('0'.repeat(zeros) + String(id))).toBe(id)
      }),
    )
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (param) => {
        const id = parseTokenId(param)
        if (id === null) return
        expect(/^[0-9]+$/.test(param)).toBe(true)
        expect(id).toBe(Number(param))
        expect(id >= 1 && id <= MAX_ID).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('validateNewToken', () => {
  it('collects every field error at once, DRF style', () => {
    expect(errorsOf(() => validateNewToken({}))).toEqual({ name: ['This field is required.'] })
    expect(errorsOf(() => validateNewToken({ name: '  ', expires_in: 'soon' }))).toEqual({
      name: ['This field may not be blank.'],
      expires_in: ['A valid integer is required.'],
    })
    expect(errorsOf(() => validateNewToken({ name: 'x'.repeat(101), expires_in: -1 }))).toEqual({
      name: ['Ensure this field has no more than 100 characters.'],
      expires_in: ['Ensure this value is greater than or equal to 1.'],
    })
    expect(errorsOf(() => validateNewToken([1]))).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] })
    expect(validateNewToken({ name: ' laptop ', expires_in: '60' })).toEqual({ name: 'laptop', expiresIn: 60 })
    expect(validateNewToken({ name: 'x'.repeat(100), expires_in: null })).toEqual({ name: 'x'.repeat(100), expiresIn: null })
  })

  it('a blank form value of expires_in is null (DRF\'s IntegerField(allow_null=True) on a QueryDict); a blank JSON string is not', () => {
    const form = (contentType: string): Pick<ApiRequest, 'headers'> => ({ headers: new Headers({ 'content-type': contentType, 'content-length': '1' }) })
    expect(validateNewToken({ name: 'x', expires_in: '' }, form('application/x-www-form-urlencoded'))).toEqual({ name: 'x', expiresIn: null })
    expect(validateNewToken({ name: 'x', expires_in: '' }, form('Multipart/Form-Data; boundary=b'))).toEqual({ name: 'x', expiresIn: null })
    expect(errorsOf(() => validateNewToken({ name: 'x', expires_in: ' ' }, form('application/x-www-form-urlencoded')))).toEqual({ expires_in: ['A valid integer is required.'] })
    expect(errorsOf(() => validateNewToken({ name: 'x', expires_in: '' }, form('application/json')))).toEqual({ expires_in: ['A valid integer is required.'] })
  })

  it('property: any JSON body is a valid input or a ValidationError, never another error', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.record({ name: fc.oneof(fc.string(), fc.jsonValue()), expires_in: fc.oneof(fc.jsonValue(), fc.string()) }, { requiredKeys: [] })),
        (body) => {
          try {
            const input = validateNewToken(body as never)
            expect(input.name.length).toBeGreaterThan(0)
            expect(input.name.length).toBeLessThanOrEqual(100)
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError)
          }
        },
      ),
      { numRuns: 2000 },
    )
  })
})

describe('named tokens on the Authorization: Token wire format', () => {
  it('property: a prefixed token (any [A-Za-z0-9_] prefix) reaches the store exactly as sent', async () => {
    const seen: string[] = []
    const scheme = new TokenAuthentication({
      tokens: { findByKey: async () => null, findWithUser: async (key): Promise<TokenWithUser | null> => (seen.push(key), null) },
      users: { findById: async () => null },
    })
    const prefix = fc.string({ unit: fc.constantFrom(...`${ALNUM}_`), maxLength: 16 })
    const secret = fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 40, maxLength: 40 })
    await fc.assert(
      fc.asyncProperty(prefix, secret, async (p, s) => {
        const key = p + s
        await expect(scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } }))).rejects.toThrow('Invalid token.')
        expect(seen.at(-1)).toBe(key)
      }),
      { numRuns: 300 },
    )
  })
})
