/**
 * Every nginx configuration the project shows or runs that proxies to gatehouse strips a
 * client's `X-Remote-User`: the instances trust that header from loopback peers (the
 * reference API's remote-user scheme), and nginx is one, so a passed-through copy would let
 * any client name itself admin. (test/scale/cluster.test.ts checks it over HTTP where nginx
 * is installed.)
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { nginxConfig } from '../../scripts/multi-instance.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const STRIP = 'proxy_set_header X-Remote-User "";'

/** The ```nginx blocks of the docs and the README that proxy somewhere. */
function proxyingBlocks(): { file: string; block: string }[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))]
  return files.flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^```nginx\n([\s\S]*?)^```$/gm)]
      .map((match) => ({ file, block: match[1] ?? '' }))
      .filter(({ block }) => block.includes('proxy_pass')),
  )
}

describe('nginx configurations strip X-Remote-User', () => {
  it('in every documented configuration that proxies', () => {
    const blocks = proxyingBlocks()
    expect(blocks.length).toBeGreaterThanOrEqual(1)
    for (const { file, block } of blocks) expect(block, file).toContain(STRIP)
  })

  it('in the one scripts/multi-instance.ts runs', () => {
    expect(nginxConfig({ dir: '/tmp/x', listenPort: 1, upstreamPorts: [2, 3], runAsRoot: false })).toContain(STRIP)
  })
})
