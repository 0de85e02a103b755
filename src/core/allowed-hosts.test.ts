import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isAllowedHost } from './allowed-hosts.js'

const hostname = (host: string): string => new URL(`http://${host}/`).hostname

describe('isAllowedHost (Django validate_host rules)', () => {
  it.each([
    ['example.com', ['example.com'], true],
    ['EXAMPLE.com:8080', ['example.com'], true],
    ['example.com.', ['example.com'], true],
    ['sub.example.com', ['.example.com'], true],
    ['example.com', ['.example.com'], true],
    ['badexample.com', ['.example.com'], false],
    ['example.com.evil', ['example.com', '.example.com'], false],
    ['evil.example', ['localhost', '127.0.0.1', '[::1]'], false],
    ['[::1]:8000', ['localhost', '127.0.0.1', '[::1]'], true],
    ['127.0.0.1:8000', ['localhost', '127.0.0.1', '[::1]'], true],
    ['anything.at.all', ['*'], true],
    ['example.com', [], false],
  ] as const)('%s with %j → %s', (host, patterns, allowed) => {
    expect(isAllowedHost(hostname(host), patterns)).toBe(allowed)
  })

  it('never allows a host that neither equals nor ends with a pattern', () => {
    fc.assert(
      fc.property(fc.domain(), fc.domain(), (host, pattern) => {
        const h = hostname(host)
        const allowed = isAllowedHost(h, [pattern, `.${pattern}`])
        const p = pattern.toLowerCase()
        expect(allowed).toBe(h === p || h.endsWith(`.${p}`) || h === `${p}.` || h.endsWith(`.${p}.`))
      }),
    )
  })
})
