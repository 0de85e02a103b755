/**
 * Tests that need something the machine may lack (PostgreSQL, Redis, Python with DRF or
 * simplejwt, a browser, nginx, a throwaway server) skip without it on a laptop, and **fail**
 * under CI (`CI=true`): there every requirement is installed by `.ci/run`, so a skip means a
 * missing install step, and a skipped test must not pass quietly.
 *
 * @example
 * describe.skipIf(unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('…', () => { … })
 */
export function unavailable(what: string, available: boolean): boolean {
  if (available) return false
  if (inCi()) {
    throw new Error(`CI=true and ${what} is not available: its tests would be skipped. Install or start it (see .ci/run and CONTRIBUTING.md), or run without CI=true.`)
  }
  return true
}

/** `unavailable` for one of `BACKENDS` (test/helpers/databases.ts). */
export function backendUnavailable(backend: { readonly name: string; readonly available: boolean }): boolean {
  return unavailable(backend.name === 'postgres' ? 'PostgreSQL (DATABASE_URL=postgres://…)' : backend.name, backend.available)
}

/**
 * The test files a CI step declares it expects to skip: `GATEHOUSE_EXPECTED_SKIPS`, comma-separated
 * paths from the repository's root (`test/topology/redis-cluster.test.ts,…`). `.ci/run`'s `npm test`
 * step names the suites that need `REDIS_CLUSTER_NODES`, which run in its topology step instead.
 * Under CI the summary reporter counts their skips apart; any other skip fails the run.
 */
export function expectedSkips(): string[] {
  return (process.env['GATEHOUSE_EXPECTED_SKIPS'] ?? '')
    .split(',')
    .map((file) => file.trim())
    .filter((file) => file !== '')
}

/** True under CI (`CI=true`, as GitHub Actions and most CI services set it, or `CI=1`). */
export function inCi(): boolean {
  const value = (process.env['CI'] ?? '').toLowerCase()
  return value === 'true' || value === '1'
}
