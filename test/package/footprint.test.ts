/**
 * The README's footprint table (packages and megabytes each stack installs) is what
 * scripts/footprint.ts measures now, from the packed tarball: a figure nobody re-measured
 * fails here. Peers publish new releases, so the figures are compared within a margin (a
 * package more or less, a few percent of the size); past it, `npx tsx scripts/footprint.ts
 * --write` rewrites the table. Needs the npm registry, like `npm ci`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installLine, measure, megabytes, readTable, renderTable, STACKS, withTable, type Footprint } from '../../scripts/footprint.js'
import { packTarball } from '../helpers/npm-pack.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
/**
 * The Node release the table was measured on, as README says: npm picks other peer versions on
 * another release (better-sqlite3 13 and @hono/node-server 2 from Node 22 on), so the figures
 * are compared there only; CI runs this file on that release and declares the skip elsewhere.
 */
const MEASURED_ON = Number(/measured by a script in CI on Node (\d+)/.exec(README)?.[1])
const NODE_MAJOR = Number(process.versions.node.split('.')[0])

describe('the footprint table', () => {
  it('reads back what it writes, and only between its markers', () => {
    const footprints: Footprint[] = STACKS.map((stack, index) => ({ stack, packages: 5 + index, bytes: 1_234_567 * (index + 1) * 7 }))
    const readme = withTable(README, renderTable(footprints))
    expect(readme.split('<!-- footprint:end -->')[1]).toBe(README.split('<!-- footprint:end -->')[1])
    expect([...readTable(readme).entries()]).toEqual(
      footprints.map((f) => [f.stack.name, { packages: f.packages, megabytes: Number(megabytes(f.bytes).replace(' MB', '')) }]),
    )
    expect(megabytes(6_240_000)).toBe('6.2 MB')
    expect(megabytes(25_400_000)).toBe('25 MB')
    expect(installLine(STACKS[1] ?? { name: '', peers: [] })).toBe('npm install drf-gatehouse fastify kysely pg')
  })

  it('says which Node release it was measured on', () => {
    expect(MEASURED_ON).toBeGreaterThanOrEqual(20)
  })
})

describe.skipIf(NODE_MAJOR !== MEASURED_ON)('the README footprint figures', () => {
  let work: string
  let tarball: string

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'gatehouse-footprint-test-'))
    tarball = (await packTarball(work)).file
  }, 900_000)

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true })
  })

  it('are what scripts/footprint.ts measures (run it with --write when they moved)', async () => {
    const stated = readTable(README)
    expect([...stated.keys()]).toEqual(STACKS.map((stack) => stack.name))
    const measured: Footprint[] = []
    for (const stack of STACKS) measured.push(await measure(tarball, stack))
    const off = measured.flatMap((f) => {
      const row = stated.get(f.stack.name)
      const mb = f.bytes / 1e6
      if (row === undefined) return [`${f.stack.name}: missing`]
      const packagesOk = Math.abs(row.packages - f.packages) <= Math.max(1, Math.round(f.packages * 0.05))
      const sizeOk = Math.abs(row.megabytes - mb) <= Math.max(0.3, mb * 0.08)
      return packagesOk && sizeOk ? [] : [`${f.stack.name}: README ${row.packages} packages, ${row.megabytes} MB; measured ${f.packages}, ${megabytes(f.bytes)}`]
    })
    expect(off).toEqual([])
  }, 900_000)
})
