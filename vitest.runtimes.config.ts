/**
 * The suites CI runs on Bun and Deno (`.ci/run`): the library's unit tests (src/) and the
 * reference API's conformance suite on Hono served by the runtime's own server (Bun.serve,
 * Deno.serve), each on SQLite (the runtime's own driver) and PostgreSQL.
 *
 *   bun --bun node_modules/vitest/vitest.mjs run --config vitest.runtimes.config.ts
 *   deno run -A node_modules/vitest/vitest.mjs run --config vitest.runtimes.config.ts
 *
 * A few test files compare gatehouse with an oracle that only Node has; they are left out on
 * the runtime named below, with the reason printed at the start of the run.
 */
import { configDefaults, defineConfig } from 'vitest/config'
import base from './vitest.config.js'
import { printLeftOut } from './test/helpers/left-out.js'

type Runtime = 'bun' | 'deno' | 'node'
const runtime: Runtime = 'Bun' in globalThis ? 'bun' : 'Deno' in globalThis ? 'deno' : 'node'

/** Test files not run on a runtime, and why: the oracle they compare with is Node's own. */
const LEFT_OUT: Readonly<Record<Runtime, Readonly<Record<string, string>>>> = {
  bun: {
    'src/crypto/portable-crypto.test.ts': 'vi.doMock does not replace modules under Bun (vitest 3), so the "portable" path it loads is the native one',
  },
  deno: {
    'src/core/encoding/base64.test.ts': "its oracle is Node's Buffer; Deno's node:buffer decodes non-base64 input differently",
    'src/core/net/ip-address.test.ts': "its oracle is node:net (isIP, BlockList); Deno's node:net refuses IPv6 zone ids Node accepts",
    'src/core/net/ip-range-list.test.ts': "its oracle is node:net's BlockList; Deno's differs on IPv6 zone ids",
  },
  node: {},
}

const leftOut = LEFT_OUT[runtime]
printLeftOut(runtime, leftOut)

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    projects: [
      {
        extends: true,
        test: { name: `unit-${runtime}`, include: ['src/**/*.test.ts', 'test/integration/core-*.test.ts'], exclude: [...configDefaults.exclude, ...Object.keys(leftOut)] },
      },
      {
        extends: true,
        test: { name: `conformance-${runtime}`, include: ['test/conformance/**/*.test.ts'], env: { GATEHOUSE_TEST_FRAMEWORK: 'hono' }, isolate: false },
      },
    ],
  },
})
