import { TEST_SECRET } from '../../test/helpers/secrets.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bytesToBase64Url } from '../core/encoding/base64.js'
import { utf8Encode } from '../core/encoding/text.js'
import { decodeCursor, encodeCursor, type Cursor } from './cursor-codec.js'

const SCOPE = '-created,id'

describe('cursor codec', () => {
  it('round-trips keys of every supported type', () => {
    const cursors: Cursor[] = [
      { reverse: false, key: [new Date('2024-01-01T00:07:00.123Z'), 7] },
      { reverse: true, key: ['2024-01-01T00:07:00.000Z', 7] },
      { reverse: true, key: null },
      { reverse: false, key: ['ünïcødé &=?#', -1.5] },
      { reverse: false, key: [true, 0] },
    ]
    for (const cursor of cursors) {
      const text = encodeCursor(cursor, SCOPE, TEST_SECRET)
      expect(text).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      expect(decodeCursor(text, SCOPE, 2, TEST_SECRET)).toEqual(cursor)
    }
  })

  it('round-trips arbitrary keys (property)', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.date({ noInvalidDate: true }))
    fc.assert(
      fc.property(fc.boolean(), fc.array(value, { minLength: 1, maxLength: 4 }), (reverse, key) => {
        const decoded = decodeCursor(encodeCursor({ reverse, key }, SCOPE, TEST_SECRET), SCOPE, key.length, TEST_SECRET)
        expect(decoded).toEqual({ reverse, key })
      }),
    )
  })

  it('rejects every single-character edit (tamper check)', () => {
    const text = encodeCursor({ reverse: false, key: ['2024-01-01T00:07:00.000Z', 7] }, SCOPE, TEST_SECRET)
    for (let i = 0; i < text.length; i++) {
      for (const ch of ['A', 'z', '0', '_']) {
        if (text[i] === ch) continue
        const edited = text.slice(0, i) + ch + text.slice(i + 1)
        expect(decodeCursor(edited, SCOPE, 2, TEST_SECRET), edited).toBeNull()
      }
    }
    expect(decodeCursor(text + 'A', SCOPE, 2, TEST_SECRET)).toBeNull()
    expect(decodeCursor(text.slice(1), SCOPE, 2, TEST_SECRET)).toBeNull()
  })

  it('rejects another scope, another secret, a wrong key length and garbage', () => {
    const text = encodeCursor({ reverse: false, key: [1, 2] }, SCOPE, 'secret-a')
    expect(decodeCursor(text, SCOPE, 2, 'secret-a')).not.toBeNull()
    expect(decodeCursor(text, '-score,id', 2, 'secret-a')).toBeNull()
    expect(decodeCursor(text, SCOPE, 2, 'secret-b')).toBeNull()
    expect(decodeCursor(text, SCOPE, 2, TEST_SECRET)).toBeNull()
    // Key rotation: any secret of the list verifies.
    expect(decodeCursor(text, SCOPE, 2, ['secret-new', 'secret-a'])).not.toBeNull()
    expect(decodeCursor(text, SCOPE, 2, ['secret-new', 'secret-b'])).toBeNull()
    expect(decodeCursor(text, SCOPE, 3, 'secret-a')).toBeNull()
    for (const bad of ['', '.', 'abc', 'bz01', 'a.b.c', '€.x', 'x'.repeat(5000)]) expect(decodeCursor(bad, SCOPE, 2, TEST_SECRET)).toBeNull()
  })

  it('a correctly signed payload of the wrong shape is still rejected', () => {
    // Values that are not keys (objects, NaN-like, nested arrays) never decode.
    const forged = encodeCursor({ reverse: false, key: [{ d: 'not a date' } as unknown as string, 1] }, SCOPE, TEST_SECRET)
    expect(decodeCursor(forged, SCOPE, 2, TEST_SECRET)).toBeNull()
  })
  it('rejects shortened, truncated and lengthened tags', () => {
    const text = encodeCursor({ reverse: false, key: ['2024-01-01T00:07:00.000Z', 7] }, SCOPE, TEST_SECRET)
    const [payload = '', tag = ''] = text.split('.')
    expect(decodeCursor(text, SCOPE, 2, TEST_SECRET)).not.toBeNull()
    expect(decodeCursor(text.slice(0, -1), SCOPE, 2, TEST_SECRET)).toBeNull()
    expect(decodeCursor(`${payload}.${tag.slice(0, 1)}`, SCOPE, 2, TEST_SECRET)).toBeNull()
    for (let length = 1; length < tag.length; length++) {
      expect(decodeCursor(`${payload}.${tag.slice(0, length)}`, SCOPE, 2, TEST_SECRET), `tag of ${length}`).toBeNull()
    }
    expect(decodeCursor(`${text}A`, SCOPE, 2, TEST_SECRET)).toBeNull()
  })

  it('a payload of one\'s choice with a one-character tag is refused for all 64 guesses', () => {
    const forged = bytesToBase64Url(utf8Encode(JSON.stringify([0, 'anything', 1])))
    const guesses = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_']
    const accepted = guesses.filter((guess) => decodeCursor(`${forged}.${guess}`, SCOPE, 2, TEST_SECRET) !== null)
    expect(accepted).toEqual([])
  })
})
