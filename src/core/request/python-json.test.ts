import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseBody } from './body-parser.js'
import { ParseError } from '../errors.js'
import { unavailable } from '../../../test/helpers/requirements.js'

/** The body DRF would answer: the parsed value, or the ParseError detail. */
async function ours(bytes: Uint8Array, charset?: string): Promise<{ ok: unknown } | { error: string }> {
  try {
    const contentType = charset === undefined ? 'application/json' : `application/json; charset=${charset}`
    return { ok: await parseBody(contentType, bytes) }
  } catch (error) {
    if (error instanceof ParseError) return { error: error.detail as string }
    throw error
  }
}

const enc = (text: string): Uint8Array => new TextEncoder().encode(text)

// Observed with DRF 3.14's JSONParser on Debian's CPython 3.11.
describe('JSON bodies: DRF JSONParser messages', () => {
  it.each<[string, Uint8Array, string]>([
    ['unquoted key', enc("{'a':1}"), 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
    ['trailing comma in array', enc('[1,]'), 'Expecting value: line 1 column 4 (char 3)'],
    ['trailing comma in object', enc('{"a":1,}'), 'Expecting property name enclosed in double quotes: line 1 column 8 (char 7)'],
    ['open array', enc('['), 'Expecting value: line 1 column 2 (char 1)'],
    ['open object', enc('{'), 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
    ['missing colon', enc('{"a" 1}'), "Expecting ':' delimiter: line 1 column 6 (char 5)"],
    ['missing comma', enc('{"a":1 "b":2}'), "Expecting ',' delimiter: line 1 column 8 (char 7)"],
    ['extra data', enc('{} {}'), 'Extra data: line 1 column 4 (char 3)'],
    ['leading zero', enc('01'), 'Extra data: line 1 column 2 (char 1)'],
    ['whitespace only', enc('  \n '), 'Expecting value: line 2 column 2 (char 4)'],
    ['multi-line position', enc('{\n  "a": 1,\n  "b" 2\n}'), "Expecting ':' delimiter: line 3 column 7 (char 18)"],
    ['unterminated string', enc('{"a": "xyz'), 'Unterminated string starting at: line 1 column 7 (char 6)'],
    ['control character', enc('["a\tb"]'), 'Invalid control character at: line 1 column 4 (char 3)'],
    ['bad escape', enc('["\\x"]'), 'Invalid \\escape: line 1 column 3 (char 2)'],
    ['short unicode escape', enc('["\\u12"]'), 'Invalid \\uXXXX escape: line 1 column 4 (char 3)'],
    ['NaN', enc('[NaN]'), "Out of range float values are not JSON compliant: 'NaN'"],
    ['-Infinity', enc('{"a": -Infinity}'), "Out of range float values are not JSON compliant: '-Infinity'"],
    ['BOM', enc('\ufeff{}'), 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
    ['invalid UTF-8 start byte', Uint8Array.from([0x7b, 0xff, 0x7d]), "'utf-8' codec can't decode byte 0xff in position 1: invalid start byte"],
    ['invalid continuation', Uint8Array.from([0x22, 0xe2, 0x82, 0x28, 0x22]), "'utf-8' codec can't decode bytes in position 1-2: invalid continuation byte"],
    ['encoded surrogate', Uint8Array.from([0x22, 0xed, 0xa0, 0x80, 0x22]), "'utf-8' codec can't decode byte 0xed in position 1: invalid continuation byte"],
    ['truncated UTF-8 at the end is dropped', Uint8Array.from([0x22, 0x61, 0xe2, 0x82]), 'Unterminated string starting at: line 1 column 1 (char 0)'],
    ['positions count code points', enc('["😀😀", x]'), 'Expecting value: line 1 column 8 (char 7)'],
    ['huge integer', enc(`[${'9'.repeat(4301)}]`), 'Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit'],
  ])('%s', async (_name, bytes, message) => {
    expect(await ours(bytes)).toEqual({ error: `JSON parse error - ${message}` })
  })

  it.each<[string, string, unknown]>([
    ['object', '{"username": "bob", "password": "x"}', { username: 'bob', password: 'x' }],
    ['nested', ' [1, -2.5e3, {"a": [true, false, null]}] ', [1, -2500, { a: [true, false, null] }]],
    ['escapes', '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"', '"\\/\b\f\n\r\té😀'],
    ['lone surrogate escape', '"\\ud800x"', '\ud800x'],
    ['duplicate keys: last wins', '{"a": 1, "a": 2}', { a: 2 }],
    ['scalar bodies', '12', 12],
    ['1e400 is a float (inf), not an error', '[1e400]', [Infinity]],
  ])('parses %s', async (_name, text, value) => {
    expect(await ours(enc(text))).toEqual({ ok: value })
  })

  it('a "__proto__" key is data', async () => {
    const result = (await ours(enc('{"__proto__": {"isStaff": true}}'))) as { ok: Record<string, unknown> }
    expect(Object.keys(result.ok)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(result.ok)).toBe(Object.prototype)
  })

  it('a charset parameter is honoured (latin-1, ascii)', async () => {
    expect(await ours(Uint8Array.from([0x22, 0xe9, 0x22]), 'latin-1')).toEqual({ ok: 'é' })
    expect(await ours(Uint8Array.from([0x22, 0xe9, 0x22]), '"ISO-8859-1"')).toEqual({ ok: 'é' })
    expect(await ours(Uint8Array.from([0x22, 0xe9, 0x22]), 'ascii')).toEqual({
      error: "JSON parse error - 'ascii' codec can't decode byte 0xe9 in position 1: ordinal not in range(128)",
    })
  })

  it('deep nesting is a 400, not a stack overflow', async () => {
    const result = await ours(enc('['.repeat(5000)))
    expect(result).toEqual({ error: expect.stringMatching(/^JSON parse error - maximum recursion depth exceeded/) })
  })
})

const DRF_SCRIPT = `
import io, json, sys
from django.conf import settings
settings.configure()
import django; django.setup()
from rest_framework.parsers import JSONParser
from rest_framework.exceptions import ParseError
out = []
for case in json.load(sys.stdin):
    try:
        v = JSONParser().parse(io.BytesIO(bytes.fromhex(case)), 'application/json', {'encoding': 'utf-8'})
        try:
            out.append({'ok': json.dumps(v, allow_nan=False)})
        except ValueError:
            out.append({'skip': True})
    except ParseError as e:
        out.append({'error': str(e.detail)})
    except RecursionError:
        out.append({'skip': True})
print(json.dumps(out))
`
const drfAvailable =
  spawnSync('/usr/bin/python3', ['-c', 'import rest_framework, django'], { stdio: 'ignore' }).status === 0

describe.skipIf(unavailable('python3 with Django and DRF', drfAvailable))('JSON bodies: differential against DRF JSONParser (CPython)', () => {
  it('agrees on 2000 generated bodies (text and raw bytes)', async () => {
    const alphabet = [...'{}[]",:0123456789-+.eEtrufalsnNIy\\u/bx \n\t', 'é', '😀', '\x01', '\x7f']
    const bodies = fc.sample(
      fc.oneof(
        fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 24 }).map(enc),
        fc.json().chain((j) =>
          fc.tuple(fc.nat(j.length), fc.constantFrom('', ',', '"', ']', '}', '\\', ' x', '\\u12')).map(([cut, junk]) => enc(j.slice(0, cut) + junk)),
        ),
        fc.json().map(enc),
        fc.uint8Array({ maxLength: 12 }),
        fc.tuple(fc.constantFrom('["', '{"a":"', '"'), fc.uint8Array({ minLength: 1, maxLength: 5 })).map(([prefix, tail]) =>
          Uint8Array.from([...enc(prefix), ...tail, 0x22]),
        ),
      ),
      { numRuns: 2000, seed: Number(process.env['JSON_SEED'] ?? 20261121) },
    ).filter((b) => b.length > 0)
    const run = spawnSync('/usr/bin/python3', ['-c', DRF_SCRIPT], {
      input: JSON.stringify(bodies.map((b) => Buffer.from(b).toString('hex'))),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
    expect(run.stderr).toBe('')
    const expected = JSON.parse(run.stdout) as ({ ok: string } | { error: string } | { skip: true })[]
    const mismatches: unknown[] = []
    for (const [i, body] of bodies.entries()) {
      const drf = expected[i]
      if (drf === undefined || 'skip' in drf) continue
      const mine = await ours(body)
      const want = 'ok' in drf ? { ok: JSON.parse(drf.ok) as unknown } : drf
      if (JSON.stringify(mine) !== JSON.stringify(want)) mismatches.push({ body: Buffer.from(body).toString('hex'), mine, drf: want })
    }
    expect(mismatches.slice(0, 5)).toEqual([])
  }, 60_000)
})
