import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as root from 'drf-gatehouse'
import * as httpEntry from 'drf-gatehouse/http'
import * as jwtEntry from 'drf-gatehouse/jwt'
import * as oauth2Entry from 'drf-gatehouse/oauth2'
import * as fastifyEntry from 'drf-gatehouse/fastify'
import * as expressEntry from 'drf-gatehouse/express'
import * as honoEntry from 'drf-gatehouse/hono'
import * as nodeEntry from 'drf-gatehouse/node'
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
      'drf-gatehouse',
      'drf-gatehouse/kysely',
      'drf-gatehouse/d1',
      'drf-gatehouse/libsql',
      'drf-gatehouse/neon',
      'drf-gatehouse/redis',
      'drf-gatehouse/fastify',
      'drf-gatehouse/express',
      'drf-gatehouse/hono',
      'drf-gatehouse/node',
      'drf-gatehouse/testing',
      'drf-gatehouse/http',
      'drf-gatehouse/jwt',
      'drf-gatehouse/oauth2',
      'drf-gatehouse/setup',
      'drf-gatehouse/admin',
    ])
  })

  it('keeps internals out of the root entry', () => {
    const internals = ['pythonStrip', 'PAGE_BREAK', 'csrfCookieHeader', 'throttleWait', 'maskCsrfSecret', 'parseCookies', 'dummyHash']
    const movedToHttp = ['createApiRequest', 'runPolicies', 'parsePythonInt', 'queryParam', 'matchRoutes', 'encodeCursor', 'decodeCursor', 'renderBrowsablePage']
    for (const name of [...internals, ...movedToHttp]) expect(Object.keys(root)).not.toContain(name)
  })

  it('keeps JWT and the HTML and query helpers out of the root entry (gatehouse/jwt, gatehouse/http)', () => {
    const jwt = ['JWTAuthentication', 'JWTStatelessUserAuthentication', 'JwtCodec', 'resolveJwtSettings', 'jwtObtainPairView', 'jwksView', 'TokenError', 'JWT_ALGORITHMS']
    const html = ['formatResponse', 'numbersTemplate', 'previousNextTemplate', 'escapeHtml', 'replaceQueryParam', 'removeQueryParam', 'parsePositiveInt']
    for (const name of [...jwt, ...html]) expect(Object.keys(root), name).not.toContain(name)
    for (const name of jwt) expect(Object.keys(jwtEntry), name).toContain(name)
    for (const name of html) expect(Object.keys(httpEntry), name).toContain(name)
  })

  it('keeps the OAuth 2.0 resource server out of the root entry (gatehouse/oauth2)', () => {
    const oauth2 = ['OAuth2Authentication', 'OAuth2AccessToken', 'TokenHasScope', 'TokenHasReadWriteScope', 'usersByClaim']
    for (const name of oauth2) expect(Object.keys(root), name).not.toContain(name)
    for (const name of oauth2) expect(Object.keys(oauth2Entry), name).toContain(name)
  })

  it('stays at most 400 names across the entries, each one a name an app writes (issue 46)', () => {
    const report = readFileSync(join(ROOT, REPORT_PATH), 'utf8')
    const counts = [...report.matchAll(/^(\d+) exports \(/gm)].map((m) => Number(m[1]))
    expect(counts).toHaveLength(entryPoints(ROOT).size)
    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(400)
  })

  it('declares nothing @deprecated in src/: 1.0 has one name per concept, no aliases kept for a release', () => {
    const deprecated = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .filter((file) => readFileSync(join(ROOT, 'src', file), 'utf8').includes('@deprecated'))
    expect(deprecated).toEqual([])
  })

  it('has one name on every adapter for sending an ApiResponse from an own handler: sendApiResponse', () => {
    for (const [name, entry] of Object.entries({ fastifyEntry, expressEntry, honoEntry, nodeEntry })) {
      expect(Object.keys(entry), name).toContain('sendApiResponse')
      for (const other of ['writeResponse', 'toResponse', 'wireResponse']) expect(Object.keys(entry), name).not.toContain(other)
    }
  })
})
