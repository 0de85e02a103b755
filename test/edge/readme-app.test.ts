/**
 * The README's Cloudflare-Workers-style app is the file the edge test bundles and runs in
 * workerd (examples/edge-worker/worker.ts), word for word, so what a reader copies is what
 * was tested. (test/docs/ type-checks the README's block like every other.)
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { sectionBlocks } from '../docs/markdown-blocks.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const HEADING = '### Cloudflare Workers and other edge runtimes'

describe('the README edge app', () => {
  it('is the tested example, word for word', () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8')
    const example = readFileSync(`${ROOT}examples/edge-worker/worker.ts`, 'utf8')
    const blocks = sectionBlocks(readme, HEADING)
    expect(blocks).toHaveLength(1)
    expect(blocks[0]).toBe(example.replace(/\n$/, ''))
    expect(blocks[0]).toMatch(/^export default app$/m)
  })
})
