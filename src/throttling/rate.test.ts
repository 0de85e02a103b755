import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../core/errors.js'
import { parseRate } from './rate.js'

describe('parseRate', () => {
  const valid = [
    ['5/sec', 5, 1_000],
    ['3/s', 3, 1_000],
    ['3/second', 3, 1_000],
    ['100/min', 100, 60_000],
    ['10/minute', 10, 60_000],
    ['5/hour', 5, 3_600_000],
    ['7/day', 7, 86_400_000],
    ['0/min', 0, 60_000],
    // DRF quirks: only the first letter of the period is read.
    ['2/mon', 2, 60_000],
    ['1/month', 1, 60_000],
    ['1/decade', 1, 86_400_000],
    ['4/hamster', 4, 3_600_000],
  ] as const
  for (const [input, limit, windowMs] of valid) {
    it(`parses ${input}`, () => expect(parseRate(input)).toEqual({ limit, windowMs }))
  }

  const invalid = ['5/10m', 'x/min', '5', '5/', '/min', '5/min/x', '1.5/min', '-1/min', ' 5/min', '5/ min', '5/Min', '5/year', '', '1e3/min', '99999999999999999999/min']
  for (const input of invalid) {
    it(`rejects ${JSON.stringify(input)} with a ConfigurationError`, () => {
      expect(() => parseRate(input)).toThrow(ConfigurationError)
      try {
        parseRate(input)
      } catch (error) {
        expect((error as ConfigurationError).code).toBe('ERR_INVALID_RATE')
      }
    })
  }

  it('either parses or throws a ConfigurationError, for any string', () => {
    fc.assert(
      fc.property(fc.string(), (input) => {
        try {
          const rate = parseRate(input)
          expect(Number.isSafeInteger(rate.limit) && rate.limit >= 0).toBe(true)
          expect([1_000, 60_000, 3_600_000, 86_400_000]).toContain(rate.windowMs)
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigurationError)
        }
      }),
    )
  })

  it('reads any count and any period starting with s, m, h or d', () => {
    fc.assert(
      fc.property(fc.nat(), fc.constantFrom('s', 'm', 'h', 'd'), fc.string({ unit: fc.constantFrom('a', 'e', 'c', 'x', '1') }), (n, unit, rest) => {
        const windows = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }
        expect(parseRate(`${n}/${unit}${rest}`)).toEqual({ limit: n, windowMs: windows[unit] })
      }),
    )
  })
})
