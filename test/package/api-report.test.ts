import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as root from 'gatehouse'
import { apiReport, entryPoints, REPORT_PATH } from '../../scripts/api-report.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

describe('the public API report', () => {
  it(`${REPORT_PATH} is the surface of every package entry (run \`npm run api-report\` after an intended change)`, () => {
    const checkedIn = readFileSync(join(ROOT, REPORT_PATH), 'utf8')
    const current = apiReport(ROOT)
    // Compared line by line so a failure shows what changed, not two 1,600-line strings.
    expect(current.split('\n')).toEqual(checkedIn.split('\n'))
  }, 120_000)

  it('covers every entry of package.json, the ./http plumbing included', () => {
    expect([...entryPoints(ROOT).keys()]).toEqual([
      'gatehouse',
      'gatehouse/kysely',
      'gatehouse/redis',
      'gatehouse/fastify',
      'gatehouse/express',
      'gatehouse/hono',
      'gatehouse/node',
      'gatehouse/testing',
      'gatehouse/http',
      'gatehouse/admin',
    ])
  })

  it('keeps internals out of the root entry', () => {
    const internals = ['pythonStrip', 'PAGE_BREAK', 'csrfCookieHeader', 'throttleWait', 'maskCsrfSecret', 'parseCookies', 'dummyHash']
    const movedToHttp = ['createApiRequest', 'runPolicies', 'parsePythonInt', 'queryParam', 'matchRoutes', 'encodeCursor', 'decodeCursor', 'renderBrowsablePage']
    for (const name of [...internals, ...movedToHttp]) expect(Object.keys(root)).not.toContain(name)
  })
})
