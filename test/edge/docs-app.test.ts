/**
 * The Cloudflare-Workers-style app of docs/runtimes.md is the file the edge test bundles and runs in
 * workerd (examples/edge-worker/worker.ts), word for word, so what a reader copies is what
 * was tested. (test/docs/ type-checks the page's block like every other.)
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { sectionBlocks } from '../docs/markdown-blocks.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const HEADING = '#### Memory stores'

describe('the edge app of docs/runtimes.md', () => {
  it('is the tested example, word for word', () => {
    const page = readFileSync(`${ROOT}docs/runtimes.md`, 'utf8')
    const example = readFileSync(`${ROOT}examples/edge-worker/worker.ts`, 'utf8')
    const blocks = sectionBlocks(page, HEADING, 'docs/runtimes.md')
    expect(blocks).toHaveLength(1)
    expect(blocks[0]).toBe(example.replace(/\n$/, ''))
    expect(blocks[0]).toMatch(/^export default app$/m)
  })
})
