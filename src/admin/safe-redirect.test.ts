// The admin's redirects: `safeNext` accepts only what Django's url_has_allowed_host_and_scheme
// accepts (a path under the admin's prefix), and `redirect` sends it as Django's iri_to_uri,
// so whatever `?next=` holds, the Location is a header value Node writes (issue 36 item 1).
import { spawnSync } from 'node:child_process'
import { validateHeaderValue } from 'node:http'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anyText } from '../../test/helpers/unicode-text.js'
import { unavailable } from '../../test/helpers/requirements.js'
import { iriToUri } from '../core/encoding/iri-to-uri.js'
import { redirect } from './admin-page.js'
import { safeNext } from './login-pages.js'

const PREFIX = '/admin/'
const location = (next: string): string => redirect(safeNext(next, PREFIX)).headers.find(([name]) => name === 'Location')?.[1] ?? ''
const writable = (value: string): boolean => {
  try {
    validateHeaderValue('Location', value)
    return true
  } catch {
    return false
  }
}

/** What `?next=` may hold once decoded: under the prefix or not, slashes, backslashes, controls, any text. */
const nextLike: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('', PREFIX, '/', '//', '/\\', '\\', ' ', '\t', 'http://', PREFIX + '/'), anyText(24), fc.constantFrom('', '€', '\x7f', '\n', '%E2', '\\\\x', '/..'))
  .map(([head, body, tail]) => head + body + tail)

/** No lone surrogate: Python cannot encode one (iri_to_uri raises), so Django has no answer to compare. */
const wellFormed = (text: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)

describe('iriToUri', () => {
  it('keeps RFC 3986 reserved and unreserved characters and %, encodes the rest as UTF-8 %XX', () => {
    expect(iriToUri("/admin/users/?a=1&b=[x]:y;$(),!*@'~#f")).toBe("/admin/users/?a=1&b=[x]:y;$(),!*@'~#f")
    expect(iriToUri('/admin/€')).toBe('/admin/%E2%82%AC')
    expect(iriToUri('/admin/\x7f\x00\n')).toBe('/admin/%7F%00%0A')
    expect(iriToUri('/a b"<>\\^`{|}')).toBe('/a%20b%22%3C%3E%5C%5E%60%7B%7C%7D')
    expect(iriToUri('/%E2%82%AC/%zz')).toBe('/%E2%82%AC/%zz')
    expect(iriToUri('/😀')).toBe('/%F0%9F%98%80')
    expect(iriToUri('/\ud800x')).toBe('/%EF%BF%BDx')
  })

  it('whatever the text, the result is printable ASCII without spaces, a valid header value, and encoding it again changes nothing (property)', () => {
    fc.assert(
      fc.property(anyText(64), (text) => {
        const uri = iriToUri(text)
        expect(uri).toMatch(/^[\x21-\x7e]*$/)
        expect(writable(uri)).toBe(true)
        expect(iriToUri(uri)).toBe(uri)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('safeNext and the Location it gives', () => {
  it('a path of the admin is kept (non-ASCII, DEL and line breaks included), encoded in the Location', () => {
    expect(location('/admin/€')).toBe('/admin/%E2%82%AC')
    expect(location('/admin/\x7f')).toBe('/admin/%7F')
    expect(location('/admin/users/\n')).toBe('/admin/users/%0A')
    expect(location('/admin/users/2/?q=é#x')).toBe('/admin/users/2/?q=%C3%A9#x')
    expect(location('/admin/\\\\evil')).toBe('/admin/%5C%5Cevil')
  })

  it('another site, a path outside the admin, or a path the browser reads as //host is the front page', () => {
    for (const next of ['', '//evil.example/', '/\\evil.example/', '\\\\evil', 'http://evil.example/admin/', ' /admin/', '/other/', '/admi', 'admin/']) {
      expect(safeNext(next, PREFIX), JSON.stringify(next)).toBe(PREFIX)
    }
    // With the prefix "/", the checks that keep a path a path carry it alone.
    for (const next of ['//evil', '/\\evil', '/\t/evil', '/\n\\evil']) expect(safeNext(next, '/'), JSON.stringify(next)).toBe('/')
    expect(safeNext('/ok/€', '/')).toBe('/ok/€')
  })

  it('whatever next is: the answer is next or the prefix, a kept next starts with the prefix, and the Location is a valid header value (property)', () => {
    fc.assert(
      fc.property(nextLike, (next) => {
        const kept = safeNext(next, PREFIX)
        expect(kept === next || kept === PREFIX).toBe(true)
        expect(kept.startsWith(PREFIX)).toBe(true)
        expect(writable(location(next))).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })

  const django = spawnSync('/usr/bin/python3', ['-c', 'import django'], { stdio: 'ignore' }).status === 0
  it.skipIf(unavailable('Django (/usr/bin/python3 with python3-django)', django))('on a sample of 500, iriToUri is Django\'s iri_to_uri, and what safeNext keeps Django\'s url_has_allowed_host_and_scheme accepts', () => {
    const sample = fc.sample(nextLike, { seed: 36, numRuns: 600 }).filter(wellFormed).slice(0, 500)
    expect(sample.length).toBe(500)
    const script = [
      'import json, sys',
      'from django.utils.encoding import iri_to_uri',
      'from django.utils.http import url_has_allowed_host_and_scheme',
      'items = json.load(sys.stdin)',
      "print(json.dumps([[iri_to_uri(s), url_has_allowed_host_and_scheme(s, allowed_hosts={'testserver'})] for s in items]))",
    ].join('\n')
    const run = spawnSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(sample), encoding: 'utf8', timeout: 60_000 })
    expect(run.status, run.stderr).toBe(0)
    const theirs = JSON.parse(run.stdout) as [string, boolean][]
    let kept = 0
    sample.forEach((next, i) => {
      const [uri, allowed] = theirs[i] ?? ['', false]
      expect(iriToUri(next), JSON.stringify(next)).toBe(uri)
      if (safeNext(next, PREFIX) === next) {
        kept++
        expect(allowed, `safeNext keeps ${JSON.stringify(next)}, Django refuses it`).toBe(true)
      }
    })
    // The sample reaches both sides.
    expect(kept).toBeGreaterThan(50)
    expect(kept).toBeLessThan(450)
  })
})
