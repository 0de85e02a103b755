import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { backendUnavailable, expectedSkips, inCi, unavailable } from './requirements.js'
import { runCommand } from './run-command.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const saved = process.env['CI']

afterEach(() => {
  if (saved === undefined) delete process.env['CI']
  else process.env['CI'] = saved
})

describe('unavailable: skip on a laptop, fail under CI', () => {
  it('without CI, a missing requirement skips (true) and a present one runs (false)', () => {
    delete process.env['CI']
    expect(inCi()).toBe(false)
    expect(unavailable('Redis (REDIS_URL)', false)).toBe(true)
    expect(unavailable('Redis (REDIS_URL)', true)).toBe(false)
    expect(backendUnavailable({ name: 'postgres', available: false })).toBe(true)
  })

  it('under CI=true (or 1), a missing requirement throws, naming it', () => {
    for (const value of ['true', '1']) {
      process.env['CI'] = value
      expect(() => unavailable('Redis (REDIS_URL)', false)).toThrow(/CI=true and Redis \(REDIS_URL\) is not available/)
      expect(() => backendUnavailable({ name: 'postgres', available: false })).toThrow(/PostgreSQL/)
      expect(unavailable('Redis (REDIS_URL)', true)).toBe(false)
    }
  })
})

describe('the summary reporter: under CI=true any skipped test fails the run', () => {
  const run = (env: Record<string, string>): Promise<{ code: number | null; stdout: string }> => {
    const base: NodeJS.ProcessEnv = { ...process.env, ...env }
    if (env['CI'] === undefined) delete base['CI']
    // The outer run's declaration (.ci/run sets one for npm test) is not the fixture's.
    if (env['GATEHOUSE_EXPECTED_SKIPS'] === undefined) delete base['GATEHOUSE_EXPECTED_SKIPS']
    return runCommand(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/helpers/fixtures/ci-skip/vitest.config.ts'], {
      cwd: ROOT,
      env: base,
      timeoutMs: 120_000,
    })
  }

  it('a skip passes locally, fails under CI, and a run without skips passes under CI', async () => {
    const local = await run({ SKIP_ONE: '1' })
    expect(local.stdout).toContain('tests: 1 passed, 0 failed, 1 skipped')
    expect(local.code).toBe(0)
    const ci = await run({ SKIP_ONE: '1', CI: 'true' })
    expect(ci.stdout).toContain('skipped: skipped.fixture.ts > a file with one passing and one skipped test > is skipped when SKIP_ONE=1')
    expect(ci.code).toBe(1)
    const clean = await run({ CI: 'true' })
    expect(clean.stdout).toContain('tests: 2 passed, 0 failed, 0 skipped')
    expect(clean.code).toBe(0)
  }, 300_000)

  it('a skip the step declares (GATEHOUSE_EXPECTED_SKIPS names its file) passes under CI, counted apart; a skip in another file still fails', async () => {
    const declared = await run({ SKIP_ONE: '1', CI: 'true', GATEHOUSE_EXPECTED_SKIPS: 'other.fixture.ts, skipped.fixture.ts' })
    expect(declared.stdout).toContain('CI=true: 1 skipped test(s) in the files this step expects to skip (GATEHOUSE_EXPECTED_SKIPS=other.fixture.ts,skipped.fixture.ts)')
    expect(declared.stdout).not.toContain('fail the run')
    expect(declared.stdout).toContain('tests: 1 passed, 0 failed, 1 skipped')
    expect(declared.code).toBe(0)
    // A prefix of the name is not the file.
    const other = await run({ SKIP_ONE: '1', CI: 'true', GATEHOUSE_EXPECTED_SKIPS: 'other.fixture.ts,skipped.fixture' })
    expect(other.stdout).toContain('skipped: skipped.fixture.ts > a file with one passing and one skipped test > is skipped when SKIP_ONE=1')
    expect(other.code).toBe(1)
  }, 300_000)
})

describe('expectedSkips', () => {
  const saved = process.env['GATEHOUSE_EXPECTED_SKIPS']
  afterEach(() => {
    if (saved === undefined) delete process.env['GATEHOUSE_EXPECTED_SKIPS']
    else process.env['GATEHOUSE_EXPECTED_SKIPS'] = saved
  })
  it('reads the comma-separated files, spaces and empty entries dropped; unset is none', () => {
    delete process.env['GATEHOUSE_EXPECTED_SKIPS']
    expect(expectedSkips()).toEqual([])
    process.env['GATEHOUSE_EXPECTED_SKIPS'] = ' test/topology/redis-cluster.test.ts ,,test/cli/cli-channel.test.ts,'
    expect(expectedSkips()).toEqual(['test/topology/redis-cluster.test.ts', 'test/cli/cli-channel.test.ts'])
  })
})
