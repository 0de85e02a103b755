/**
 * Every TypeScript block of docs/stores.md compiles under the repo's strict settings, each
 * as its own module importing the package by name (the repo maps the names to the source).
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The ```ts blocks of a Markdown file, in order. */
function typescriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '')
}

describe('docs/stores.md', () => {
  // Inside the repo, so `kysely`, `vitest` and `gatehouse/*` resolve as they do for the tests.
  const dir = mkdtempSync(join(ROOT, 'test', 'docs', '.blocks-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('has TypeScript blocks, and every one type-checks (strict, exactOptionalPropertyTypes)', async () => {
    const blocks = typescriptBlocks(readFileSync(join(ROOT, 'docs', 'stores.md'), 'utf8'))
    expect(blocks.length).toBeGreaterThanOrEqual(6)
    blocks.forEach((block, index) => writeFileSync(join(dir, `block-${index + 1}.ts`), `${block}\nexport {}\n`))
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: '../../../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '../../..' }, include: ['*.ts'] }),
    )
    // Asynchronously: a synchronous tsc of a loaded minute would starve vitest's worker RPC.
    const result = await promisify(execFile)(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', timeout: 120_000 }).then(
      ({ stdout, stderr }) => ({ output: stdout + stderr, status: 0 }),
      (error: { stdout?: string; stderr?: string; code?: number }) => ({ output: `${error.stdout ?? ''}${error.stderr ?? ''}`, status: error.code ?? -1 }),
    )
    expect(result.output).toBe('')
    expect(result.status).toBe(0)
  }, 120_000)
})
