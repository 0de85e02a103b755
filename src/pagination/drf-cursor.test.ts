import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TEST_SECRET } from '../../test/helpers/secrets.js'
import type { ApiRequest } from '../core/api-request.js'
import { createApiRequest } from '../core/request/request-factory.js'
import { ArrayPageSource } from './array-page-source.js'
import { CursorPagination } from './cursor-pagination.js'
import { decodeDrfCursor, drfPositionAs, drfPositionCandidates, encodeDrfCursor, type DrfCursor } from './drf-cursor.js'
import { unavailable } from '../../test/helpers/requirements.js'

function getRequest(url: string): ApiRequest {
  return createApiRequest({ method: 'GET', url: new URL(url), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })
}

const b64 = (text: string): string => Buffer.from(text, 'latin1').toString('base64')

describe('decodeDrfCursor / encodeDrfCursor (drf-behaviors §14.3)', () => {
  it('encodes DRF’s examples byte for byte', () => {
    expect(encodeDrfCursor({ offset: 5, reverse: false, position: null })).toBe('bz01')
    expect(encodeDrfCursor({ offset: 2, reverse: false, position: '3' })).toBe('bz0yJnA9Mw==')
    expect(encodeDrfCursor({ offset: 0, reverse: true, position: null })).toBe('cj0x')
    expect(encodeDrfCursor({ offset: 0, reverse: false, position: '7' })).toBe('cD03')
    expect(encodeDrfCursor({ offset: 0, reverse: true, position: '487' })).toBe('cj0xJnA9NDg3')
    expect(encodeDrfCursor({ offset: 0, reverse: false, position: '486' })).toBe('cD00ODY=')
    const dated = encodeDrfCursor({ offset: 2, reverse: true, position: '2024-01-01 00:00:00+00:00' })
    expect(Buffer.from(dated, 'base64').toString('latin1')).toBe('o=2&r=1&p=2024-01-01+00%3A00%3A00%2B00%3A00')
  })

  it('decodes as DRF does: defaults, clamping, reverse, blank and repeated keys', () => {
    const d = (text: string): DrfCursor | null => decodeDrfCursor(text)
    expect(d('bz01')).toEqual({ offset: 5, reverse: false, position: null })
    expect(d('bz0yJnA9Mw==')).toEqual({ offset: 2, reverse: false, position: '3' })
    expect(d('cj0xJnA9NDg3')).toEqual({ offset: 0, reverse: true, position: '487' })
    expect(d('')).toEqual({ offset: 0, reverse: false, position: null })
    expect(d('==')).toEqual({ offset: 0, reverse: false, position: null })
    expect(d(b64('abc'))).toEqual({ offset: 0, reverse: false, position: null })
    expect(d(b64('o=2000'))).toEqual({ offset: 1000, reverse: false, position: null })
    expect(decodeDrfCursor(b64('o=2000'), 50)).toEqual({ offset: 50, reverse: false, position: null })
    expect(d(b64('r=2'))).toEqual({ offset: 0, reverse: true, position: null })
    expect(d(b64('r=0&p='))).toEqual({ offset: 0, reverse: false, position: '' })
    expect(d(b64('o=1&o=9&p=a&p=b'))).toEqual({ offset: 1, reverse: false, position: 'a' })
    expect(d(b64('?o=5'))).toEqual({ offset: 0, reverse: false, position: null })
    expect(d(b64('o=+2&p=%E2%82%AC'))).toEqual({ offset: 2, reverse: false, position: '€' })
    expect(d('bz01!!')).toEqual({ offset: 5, reverse: false, position: null })
    for (const bad of ['123', 'bz0', '€', 'bz01€', b64('o=-1'), b64('o='), b64('o=1.5'), b64('r=abc'), b64('p=\u00e9'), 'A'.repeat(5000)]) {
      expect([bad, d(bad)]).toEqual([bad, null])
    }
  })

  it('any string decodes to a cursor or null, never throws (property)', () => {
    const shaped = fc
      .record({ o: fc.option(fc.string()), r: fc.option(fc.string()), p: fc.option(fc.string({ unit: 'grapheme' })) })
      .map(({ o, r, p }) => b64([o === null ? '' : `o=${o}`, r === null ? '' : `r=${r}`, p === null ? '' : `p=${encodeURIComponent(p)}`].join('&')))
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.base64String(), shaped), (text) => {
        const cursor = decodeDrfCursor(text)
        if (cursor !== null) {
          expect(Number.isSafeInteger(cursor.offset) && cursor.offset >= 0 && cursor.offset <= 1000).toBe(true)
          expect(typeof cursor.reverse).toBe('boolean')
          expect(cursor.position === null || typeof cursor.position === 'string').toBe(true)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('round-trips what it encodes (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1000 }), fc.boolean(), fc.option(fc.string({ unit: 'grapheme' })), (offset, reverse, position) => {
        const cursor = { offset, reverse, position }
        expect(decodeDrfCursor(encodeDrfCursor(cursor))).toEqual(cursor)
      }),
    )
  })

  const python = '/usr/bin/python3'
  const drfPresent = existsSync(python) && spawnSync(python, ['-c', 'import rest_framework, django'], { stdio: 'ignore' }).status === 0
  it.skipIf(unavailable('python3 with Django and DRF', drfPresent))('agrees with DRF’s own decode_cursor on random strings (Python differential)', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'ABCDabcd0123+/=!-_. %&?o=r=p'.split('')), maxLength: 24 })
    const query = fc
      .array(fc.tuple(fc.constantFrom('o', 'r', 'p', 'x', ''), fc.constantFrom('', '0', '1', '-1', '+3', ' 4 ', '2000', '1_0', 'abc', '%41', '٣')), { maxLength: 4 })
      .map((pairs) => Buffer.from(pairs.map(([k, v]) => `${k}=${v}`).join('&'), 'utf8').toString('base64'))
    const inputs = [...fc.sample(fc.oneof(ascii, query, fc.base64String(), fc.string({ maxLength: 12 })), 1500), '', '==', '€', 'bz01==YQ==']
    const script = `
import sys, json
from django.conf import settings
settings.configure()
import django; django.setup()
from rest_framework.pagination import CursorPagination
from rest_framework.exceptions import NotFound
class R:
    def __init__(s, v): s.query_params = {'cursor': v}
p = CursorPagination()
out = []
for text in json.load(sys.stdin):
    try:
        c = p.decode_cursor(R(text))
        out.append([c.offset, bool(c.reverse), c.position])
    except NotFound:
        out.append(None)
json.dump(out, sys.stdout)
`
    const run = spawnSync(python, ['-c', script], { input: JSON.stringify(inputs), encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } })
    expect(run.status, run.stderr).toBe(0)
    const expected = JSON.parse(run.stdout) as ([number, boolean, string | null] | null)[]
    const differences = inputs.flatMap((text, i) => {
      const ours = decodeDrfCursor(text)
      const mine = ours === null ? null : [ours.offset, ours.reverse, ours.position]
      return JSON.stringify(mine) === JSON.stringify(expected[i]) ? [] : [`${JSON.stringify(text)}: ours ${JSON.stringify(mine)}, DRF ${JSON.stringify(expected[i])}`]
    })
    expect(differences).toEqual([])
  })
})

describe('drfPositionCandidates', () => {
  it('reads Python str() of ints, floats, booleans and datetimes; the text itself always last', () => {
    expect(drfPositionCandidates('123')).toEqual([123, '123'])
    expect(drfPositionCandidates('-7.5')).toEqual([-7.5, '-7.5'])
    expect(drfPositionCandidates('True')).toEqual([true, 'True'])
    expect(drfPositionCandidates('2024-01-01 00:07:00+00:00')).toEqual([new Date('2024-01-01T00:07:00.000Z'), '2024-01-01 00:07:00+00:00'])
    expect(drfPositionCandidates('2024-01-01 02:07:00.123456+02:00')).toEqual([new Date('2024-01-01T00:07:00.123Z'), '2024-01-01 02:07:00.123456+02:00'])
    expect(drfPositionCandidates('2024-01-01 00:07:00')).toEqual([new Date('2024-01-01T00:07:00.000Z'), '2024-01-01 00:07:00'])
    for (const text of ['2024-02-30 00:00:00+00:00', '0099-01-01 00:00:00+00:00', 'abc', 'None', '99999999999999999999', 'inf', 'nan', '']) {
      expect(drfPositionCandidates(text)).toEqual([text])
    }
  })

  it('never throws and always ends with the text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = drfPositionCandidates(text)
        expect(out[out.length - 1]).toBe(text)
        for (const value of out.slice(0, -1)) expect(value instanceof Date ? !Number.isNaN(value.getTime()) : Number.isFinite(value) || typeof value === 'boolean').toBe(true)
      }),
    )
  })
})

describe('CursorPagination with DRF cursors over DRF’s test vector (§14.7)', () => {
  const CREATED = [1, 1, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4, 5, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 9, 9, 9, 9, 9, 9]
  const source = new ArrayPageSource(CREATED.map((created, i) => ({ id: i + 1, created })))
  const p = new CursorPagination({ secret: TEST_SECRET, ordering: 'created', pageSize: 5, drfCursors: true })
  const page = async (query: string): Promise<{ values: number[]; next: boolean; previous: boolean }> => {
    const result = await p.paginate(source, getRequest(`http://testserver/cp/?cursor=${encodeURIComponent(b64(query))}`))
    if (result === null) throw new Error('pagination off')
    return { values: result.items.map((r) => r.created), next: result.next !== null, previous: result.previous !== null }
  }

  it('gives DRF’s pages for DRF’s forward and backward cursors', async () => {
    expect(await page('o=5')).toEqual({ values: [1, 2, 3, 4, 4], next: true, previous: true })
    expect(await page('o=2&p=3')).toEqual({ values: [4, 4, 5, 6, 7], next: true, previous: true })
    expect(await page('o=1&p=6')).toEqual({ values: [7, 7, 7, 7, 7], next: true, previous: true })
    expect(await page('o=6&p=6')).toEqual({ values: [7, 7, 7, 8, 9], next: true, previous: true })
    expect(await page('o=1&p=8')).toEqual({ values: [9, 9, 9, 9, 9], next: false, previous: true })
    expect(await page('o=5&r=1')).toEqual({ values: [7, 7, 7, 8, 9], next: true, previous: true })
    expect(await page('o=3&r=1&p=8')).toEqual({ values: [7, 7, 7, 7, 7], next: true, previous: true })
    expect(await page('o=8&r=1&p=8')).toEqual({ values: [4, 4, 5, 6, 7], next: true, previous: true })
    expect(await page('o=2000')).toEqual({ values: [], next: false, previous: true })
  })

  it('links carry gatehouse cursors that continue without repeating or skipping', async () => {
    const result = await p.paginate(source, getRequest(`http://testserver/cp/?cursor=${encodeURIComponent(b64('o=2&p=3'))}`))
    const ids = result?.items.map((r) => r.id)
    expect(ids).toEqual([11, 12, 13, 14, 15])
    const next = await p.paginate(source, getRequest(result?.next ?? ''))
    expect(next?.items.map((r) => r.id)).toEqual([16, 17, 18, 19, 20])
    const previous = await p.paginate(source, getRequest(result?.previous ?? ''))
    expect(previous?.items.map((r) => r.id)).toEqual([6, 7, 8, 9, 10])
    expect(p.decode(new URL(result?.next ?? '').searchParams.get('cursor') ?? '')).not.toBeNull()
  })

  it('a position that does not fit the field, or a source without seekPosition: 404 Invalid cursor', async () => {
    await expect(page('p=abc')).rejects.toMatchObject({ status: 404, detail: 'Invalid cursor' })
    // A SeekSource without the optional seekPosition.
    const plain = { count: source.count.bind(source), slice: source.slice.bind(source), all: source.all.bind(source), seek: source.seek.bind(source), keyOf: source.keyOf.bind(source), acceptsKey: source.acceptsKey.bind(source) }
    await expect(p.paginate(plain, getRequest(`http://testserver/cp/?cursor=bz01`))).rejects.toMatchObject({ status: 404, detail: 'Invalid cursor' })
  })
})

describe('drfPositionAs (Django model fields converting a DRF position)', () => {
  it('integer fields take Python int(), any size', () => {
    for (const [text, value] of [['+5', 5], ['1_0', 10], ['٣', 3], [' 5 ', 5], ['\u00855', 5], ['2147483648', 2147483648], ['-2147483649', -2147483649]] as const) {
      expect([text, drfPositionAs(text, 'integer')]).toEqual([text, value])
    }
    for (const text of ['5.0', 'abc', '', '\u001c5', '\ufeff5', '1__0']) expect([text, drfPositionAs(text, 'integer')]).toEqual([text, null])
  })

  it('datetime fields take Django 3.2 parse_datetime, then parse_date (midnight UTC)', () => {
    const at = (iso: string): Date => new Date(iso)
    expect(drfPositionAs('2024-1-1 01:00:00', 'timestamp')).toEqual(at('2024-01-01T01:00:00Z'))
    expect(drfPositionAs('2024-01-01 1:0', 'timestamp')).toEqual(at('2024-01-01T01:00:00Z'))
    expect(drfPositionAs('2024-01-01', 'timestamp')).toEqual(at('2024-01-01T00:00:00Z'))
    expect(drfPositionAs('2024-01-01\n', 'timestamp')).toEqual(at('2024-01-01T00:00:00Z'))
    expect(drfPositionAs('2024-01-01T00:10:00.5-0030', 'timestamp')).toEqual(at('2024-01-01T00:40:00.500Z'))
    expect(drfPositionAs('2024-01-01 00:10:00,25+01', 'timestamp')).toEqual(at('2023-12-31T23:10:00.250Z'))
    expect(drfPositionAs('٢٠٢٤-01-01 00:05', 'timestamp')).toEqual(at('2024-01-01T00:05:00Z'))
    for (const text of ['2024-02-30', '2024-01-01 24:00', '2024-01-01 00:10+24', '2024-01-01 ', '24-01-01', '0000-01-01', 'None']) {
      expect([text, drfPositionAs(text, 'timestamp')]).toEqual([text, null])
    }
  })

  it('boolean fields take Django\'s spellings; text is as is', () => {
    expect(['t', 'True', '1', 'f', 'False', '0', 'true'].map((t) => drfPositionAs(t, 'boolean'))).toEqual([true, true, true, false, false, false, null])
    expect(drfPositionAs(' x ', 'text')).toBe(' x ')
  })

  it('never throws, for arbitrary text and every kind', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.constantFrom('integer', 'number', 'boolean', 'timestamp', 'text' as const), (text, kind) => {
        drfPositionAs(text, kind)
      }),
    )
  })
})
