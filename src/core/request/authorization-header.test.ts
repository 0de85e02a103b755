import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  decodeUtf8OrLatin1,
  decodeUtf8Strict,
  headerValueAsUtf8,
  lenientBase64Decode,
  splitAuthorizationHeader,
} from './authorization-header.js'

describe('splitAuthorizationHeader', () => {
  it.each([
    [null, []],
    ['', []],
    ['   ', []],
    ['\t \t', []],
    ['Basic abc', ['Basic', 'abc']],
    ['Basic\tabc', ['Basic', 'abc']],
    ['  Basic    abc  ', ['Basic', 'abc']],
    ['Basic \t\v\f\r\n abc', ['Basic', 'abc']],
    ['Token a b', ['Token', 'a', 'b']],
    // Python's bytes.split() knows only ASCII whitespace: NBSP (0xA0) and 0x1C–0x1F are data.
    ['Token a\xa0b', ['Token', 'a\xa0b']],
    ['Token a\x1cb', ['Token', 'a\x1cb']],
  ] as const)('%j → %j', (header, parts) => {
    expect(splitAuthorizationHeader(header)).toEqual(parts)
  })

  it('is the split on runs of ASCII whitespace, empty parts dropped (property)', () => {
    const unit = fc.constantFrom(' ', '\t', '\n', '\v', '\f', '\r', 'a', 'B', '=', '\xa0', '\x1c', '\x85', 'é', '😀')
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (header) => {
        expect(splitAuthorizationHeader(header)).toEqual(header.split(/[ \t\r\n\v\f]+/).filter((part) => part !== ''))
      }),
      { numRuns: 2000 },
    )
  })
})

describe('lenientBase64Decode (Python base64.b64decode without validate)', () => {
  // Produced by Debian's /usr/bin/python3 (3.11): [input, hex output or null for binascii.Error].
  const PYTHON_VECTORS: readonly (readonly [string, string | null])[] = [
    ['dXNlcjpwYQ==YQ==', '757365723a7061'],
    ['dXNl!!cjpwYQ==', '757365723a7061'],
    ['=a=', null],
    ['abc', null],
    ['a', null],
    ['ab', null],
    ['abc=', '69b7'],
    ['ab==', '69'],
    ['ab=', null],
    ['a===', null],
    ['', ''],
    ['====', ''],
    ['YQ', null],
    ['YQ=', null],
    ['YQ==', '61'],
    ['Y Q = =', '61'],
    ['YW=J', null],
    ['YWJj=ZA==', '61626364'],
    ['Y=Q==', '61'],
    ['YQ=x=', '610c'],
    ['\xe9YQ==', '61'],
    ['YWI=\xff', '6162'],
    ['YWJjZA=', null],
    ['YWJjZA==', '61626364'],
    ['Z===', null],
    ['YQ===', '61'],
    ['AB=C', null],
    ['A=BC', null],
    ['AB==CD==', '00'],
    ['ABC=D===', '0010'],
  ]

  it.each(PYTHON_VECTORS)('%j → %j', (input, hex) => {
    const out = lenientBase64Decode(input)
    expect(out === null ? null : Buffer.from(out).toString('hex')).toBe(hex)
  })

  it('round-trips what Buffer encodes', () => {
    for (const text of ['alice:alice-pass-1', 'bob:pw:with:colons', 'ünïcødé:пароль', '']) {
      const encoded = Buffer.from(text, 'utf8').toString('base64')
      expect(Buffer.from(lenientBase64Decode(encoded) ?? []).toString('utf8')).toBe(text)
    }
  })
})

describe('decodeUtf8OrLatin1 / decodeUtf8Strict', () => {
  it('decodes valid UTF-8 as UTF-8', () => {
    const bytes = Buffer.from('pässwörd', 'utf8')
    expect(decodeUtf8OrLatin1(bytes)).toBe('pässwörd')
    expect(decodeUtf8Strict(bytes)).toBe('pässwörd')
  })

  it('falls back to Latin-1 for invalid UTF-8 (DRF PR #7193); strict gives null', () => {
    const bytes = Uint8Array.from([0x70, 0xe9, 0x21]) // "pé!" in Latin-1, invalid UTF-8
    expect(decodeUtf8OrLatin1(bytes)).toBe('pé!')
    expect(decodeUtf8Strict(bytes)).toBeNull()
  })

  it('keeps a leading BOM, as Python does (it is part of the user id, not stripped)', () => {
    const bytes = Buffer.from('\ufeffalice', 'utf8')
    expect(decodeUtf8OrLatin1(bytes)).toBe('\ufeffalice')
    expect(decodeUtf8Strict(bytes)).toBe('\ufeffalice')
  })

  it('handles empty input', () => {
    expect(decodeUtf8OrLatin1(new Uint8Array())).toBe('')
    expect(decodeUtf8Strict(new Uint8Array())).toBe('')
  })
})

describe('headerValueAsUtf8', () => {
  it('equals the strict UTF-8 decoding of the value as Latin-1 bytes, for any header value', () => {
    const latin1 = fc.string({ unit: fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 64 })
    const utf8AsLatin1 = fc.string({ unit: 'binary', maxLength: 32 }).map((text) => Buffer.from(text, 'utf8').toString('latin1'))
    fc.assert(
      fc.property(fc.oneof(latin1, utf8AsLatin1, fc.string({ maxLength: 64 })), (value) => {
        expect(headerValueAsUtf8(value)).toBe(decodeUtf8Strict(Buffer.from(value, 'latin1')))
      }),
      { numRuns: 2000 },
    )
  })

  it('keeps ASCII as is and reads UTF-8 sent as Latin-1', () => {
    expect(headerValueAsUtf8('b0b0b0')).toBe('b0b0b0')
    expect(headerValueAsUtf8(Buffer.from('clé', 'utf8').toString('latin1'))).toBe('clé')
    expect(headerValueAsUtf8('cl\u00e9')).toBeNull()
  })
})
