/**
 * The README is the page a new user reads top to bottom: at most 300 lines, and every guide
 * under docs/ reachable from it, so nothing moved out of it is lost. (Its footprint figures are
 * compared with scripts/footprint.ts's measurement in test/package/footprint.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')

describe('the README', () => {
  it('is at most 300 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300)
  })

  it('links every page of docs/', () => {
    const linked = new Set([...README.matchAll(/\]\(docs\/([^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((match) => match[1]))
    const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'))
    expect(pages.length).toBeGreaterThan(10)
    expect(pages.filter((page) => !linked.has(page))).toEqual([])
  })

  it('gets to the install line, a quick start for each framework and the demo', () => {
    const headings = README.split('\n').filter((line) => /^#{2,3} /.test(line))
    expect(headings).toEqual(
      expect.arrayContaining(['## Install', '## Quick start', '### Fastify', '### Express (4 and 5)', '### Hono', '### node:http (no framework)', '## Try the demo']),
    )
    expect(README).toContain('npm install && npm start')
  })
})
