import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { newestSpec, oldestIn } from './peer-ends.js'

const ROOT = new URL('../../', import.meta.url)
const PACKAGE = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { peerDependencies: Record<string, string> }

describe('the ends of the peer ranges', () => {
  it('oldestIn reads the lowest version of every range package.json uses', () => {
    expect(oldestIn('^0.28.0 || ^0.29.0')).toBe('0.28.0')
    expect(oldestIn('^5.0.0 || ^4.21.0')).toBe('4.21.0')
    expect(oldestIn('>=11.0.0')).toBe('11.0.0')
    expect(oldestIn('^8.11.0')).toBe('8.11.0')
    expect(() => oldestIn('latest')).toThrow()
    for (const range of Object.values(PACKAGE.peerDependencies)) expect(oldestIn(range)).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it('the newest better-sqlite3 on Node 20 is 12.x (13 needs Node 22); otherwise latest', () => {
    expect(newestSpec('better-sqlite3', 20)).toBe('^12.0.0')
    expect(newestSpec('better-sqlite3', 22)).toBe('latest')
    expect(newestSpec('kysely', 20)).toBe('latest')
  })

  it('README states every peer range next to the install line, as package.json declares it', () => {
    const readme = readFileSync(fileURLToPath(new URL('README.md', ROOT)), 'utf8')
    const lines = readme.split('\n')
    for (const [name, range] of Object.entries(PACKAGE.peerDependencies)) {
      // In a Markdown table a | is written \|.
      const stated = lines.some((line) => line.includes(`\`${name}\``) && line.includes(`\`${range.replaceAll('|', '\\|')}\``))
      expect(stated, `${name} ${range}`).toBe(true)
    }
  })
})
