import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isApiError, ValidationError } from '../core/errors.js'
import { pythonStrip as corePythonStrip } from '../core/request/python-strip.js'
import { pythonStrip, validateCharFields } from './char-fields.js'

const FIELDS = { username: {}, password: { trimWhitespace: false } } as const

/** The error detail `validateCharFields` throws, or the values it returns. */
function run(data: unknown, headers: Record<string, string> = { 'content-length': '10' }): unknown {
  try {
    return validateCharFields(data, FIELDS, { headers: { get: (name) => headers[name.toLowerCase()] ?? null } })
  } catch (error) {
    if (error instanceof ValidationError) return { status: error.status, detail: error.detail }
    throw error
  }
}

describe('validateCharFields', () => {
  it.each([
    [{ username: 'bob', password: 'pw' }, { username: 'bob', password: 'pw' }],
    [{ username: ' bob\t', password: ' pw ' }, { username: 'bob', password: ' pw ' }],
    [{ username: 12, password: 3.5 }, { username: '12', password: '3.5' }],
    [{ username: 'bob', password: 'pw', extra: [1] }, { username: 'bob', password: 'pw' }],
    [{ username: '\u{1F600}', password: '\ud83d\ude00' }, { username: '\u{1F600}', password: '\u{1F600}' }],
  ])('accepts %j', (data, expected) => {
    expect(run(data)).toEqual(expected)
  })

  it.each([
    [{}, { username: ['This field is required.'], password: ['This field is required.'] }],
    [{ password: 'x' }, { username: ['This field is required.'] }],
    [{ username: '', password: '' }, { username: ['This field may not be blank.'], password: ['This field may not be blank.'] }],
    [{ username: '\u001f\u0085 ', password: ' ' }, { username: ['This field may not be blank.'] }],
    [{ username: null, password: null }, { username: ['This field may not be null.'], password: ['This field may not be null.'] }],
    [{ username: true, password: false }, { username: ['Not a valid string.'], password: ['Not a valid string.'] }],
    [{ username: ['a'], password: { a: 1 } }, { username: ['Not a valid string.'], password: ['Not a valid string.'] }],
    [{ username: 'a\u0000b', password: 'x' }, { username: ['Null characters are not allowed.'] }],
    [
      { username: 'a\u0000\udc00', password: 'x' },
      { username: ['Null characters are not allowed.', 'Surrogate characters are not allowed: U+DC00.'] },
    ],
    [[], { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] }],
    ['x', { non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] }],
    [3, { non_field_errors: ['Invalid data. Expected a dictionary, but got int.'] }],
    [0.5, { non_field_errors: ['Invalid data. Expected a dictionary, but got float.'] }],
    [false, { non_field_errors: ['Invalid data. Expected a dictionary, but got bool.'] }],
    [null, { non_field_errors: ['No data provided'] }],
  ])('refuses %j', (data, detail) => {
    expect(run(data)).toEqual({ status: 400, detail })
  })

  it('keeps the errors in field order, not body order', () => {
    const result = run({ password: null, username: null }) as { detail: Record<string, unknown> }
    expect(Object.keys(result.detail)).toEqual(['username', 'password'])
  })

  it('treats a null body without body bytes as an empty form', () => {
    expect(run(null, {})).toEqual({
      status: 400,
      detail: { username: ['This field is required.'], password: ['This field is required.'] },
    })
    expect(run(null, { 'content-length': '0' })).toMatchObject({ detail: { username: ['This field is required.'] } })
    expect(run(null, { 'transfer-encoding': 'chunked' })).toMatchObject({ detail: { username: ['This field is required.'] } })
    expect(run(null, { 'content-length': '4' })).toEqual({ status: 400, detail: { non_field_errors: ['No data provided'] } })
  })

  it('strips with Python rules: U+001F and U+0085 are whitespace, U+FEFF is not', () => {
    expect(pythonStrip('\u001f\u0085 a b\u3000')).toBe('a b')
    expect(pythonStrip('\ufeffa')).toBe('\ufeffa')
  })

  it('never throws anything but a 400 ValidationError, and returns strings only (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.option(fc.jsonValue()), fc.option(fc.jsonValue()), (body, username, password) => {
        const data =
          typeof body === 'object' && body !== null && !Array.isArray(body)
            ? { ...body, ...(username === null ? {} : { username }), ...(password === null ? {} : { password }) }
            : body
        try {
          const values = validateCharFields(data, FIELDS)
          expect(typeof values.username).toBe('string')
          expect(typeof values.password).toBe('string')
          expect(values.username).toBe(pythonStrip(values.username))
          expect(values.username).not.toBe('')
        } catch (error) {
          expect(isApiError(error) && error.status === 400).toBe(true)
        }
      }),
    )
  })

  it('keeps every non-blank password exactly and trims every username (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (username, password) => {
        fc.pre(pythonStrip(username) !== '' && password !== '' && !username.includes('\u0000') && !password.includes('\u0000'))
        expect(validateCharFields({ username, password }, FIELDS)).toEqual({ username: pythonStrip(username), password })
      }),
    )
  })
})

describe('pythonStrip', () => {
  it("is the core's Python str.strip(), not a copy", () => {
    expect(pythonStrip).toBe(corePythonStrip)
  })
})
