import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { EBADENGINE_ON_NODE_20, ebadenginePackages, newestSpec, oldestIn, peerEndsToTest, typesFor } from './peer-ends.js'

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

  it('GATEHOUSE_PEER_ENDS picks the ends; unset, both', () => {
    expect(peerEndsToTest(undefined)).toEqual(['oldest', 'newest'])
    expect(peerEndsToTest('')).toEqual(['oldest', 'newest'])
    expect(peerEndsToTest('newest')).toEqual(['newest'])
    expect(peerEndsToTest('oldest, newest')).toEqual(['oldest', 'newest'])
    expect(() => peerEndsToTest('latest')).toThrow(/oldest or newest/)
  })

  it('the newest end type-checks with the running Node\'s types, the oldest with Node 20\'s', () => {
    expect(typesFor('newest', { express: '5.1.0' }, 24)['@types/node']).toBe('^24.0.0')
    expect(typesFor('oldest', { express: '4.21.0' }, 24)).toEqual({ '@types/node': '^20.0.0', '@types/express': '^4.17.21' })
  })

  it('reads the packages npm warns EBADENGINE about from its log', () => {
    const log = [
      'npm warn EBADENGINE Unsupported engine {',
      "npm warn EBADENGINE   package: 'kysely@0.29.9',",
      "npm warn EBADENGINE   required: { node: '>=22.0.0' },",
      "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }",
      'npm warn EBADENGINE }',
      "npm warn EBADENGINE   package: '@scope/name@1.0.0',",
      "npm warn EBADENGINE   package: 'kysely@0.29.9',",
      'npm warn deprecated something',
    ].join('\n')
    expect(ebadenginePackages(log)).toEqual(['@scope/name', 'kysely'])
    expect(ebadenginePackages('added 3 packages')).toEqual([])
  })

  it('README names the packages that warn EBADENGINE on Node 20', () => {
    const readme = readFileSync(fileURLToPath(new URL('README.md', ROOT)), 'utf8')
    for (const name of EBADENGINE_ON_NODE_20) expect(readme).toMatch(new RegExp(`EBADENGINE[^\n]*${name}|${name}[^\n]*EBADENGINE`, 'i'))
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
