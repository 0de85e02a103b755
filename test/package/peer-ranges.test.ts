/**
 * Both ends of every peer range: the packed tarball installed with a plain `npm install` (no
 * --legacy-peer-deps) into a scratch app once with the oldest version each peer range admits
 * and once with the newest release of each peer, then the app (test/package/fixtures/peer-app.ts)
 * is type-checked (strict, skipLibCheck off) and run: it serves requests on Fastify, Express,
 * Hono and node:http with SQLite, PostgreSQL and Redis behind them.
 *
 * Needs the npm registry, like `npm ci`. To stay fast on a busy machine, each end's scratch app
 * is kept between runs in `~/.cache/gatehouse-peer-ends/` (better-sqlite3 is compiled there
 * once per version); every run still installs into a fresh copy with `npm install`, which
 * resolves the peers anew against the new tarball.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshPostgres, postgresAvailable, type TestDatabase } from '../helpers/databases.js'
import { jwtBlacklistMigrations } from '../../src/kysely/jwt-blacklist-migrations.js'
import { authMigrations } from '../../src/kysely/migrations.js'
import { unavailable } from '../helpers/requirements.js'
import { packTarball } from '../helpers/npm-pack.js'
import { runCommand } from '../helpers/run-command.js'
import { EBADENGINE_ON_NODE_20, ebadenginePackages, newestSpec, oldestIn, peerEndsToTest, resolveVersion, typesFor, type PeerEnd } from './peer-ends.js'
import { keepCompiledSqlite, repoSqliteAddon } from './sqlite-prebuilds.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>
  devDependencies: Record<string, string>
}
const TYPESCRIPT = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'typescript', 'package.json'), 'utf8')) as { version: string }).version
const NODE_MAJOR = Number(process.versions.node.split('.')[0])
const CACHE = join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'gatehouse-peer-ends')
/** The scratch app's install: warnings too, for its EBADENGINE lines. */
const NPM_INSTALL = ['--no-audit', '--no-fund', '--loglevel=warn']
const ENDS = peerEndsToTest(process.env['GATEHOUSE_PEER_ENDS'])
/** A first run compiles better-sqlite3 (no prebuilt binary reachable): minutes on a busy 2-core machine. */
const TIMEOUT_MS = 1_500_000

let work: string
let tarball: string
/** One database per end: the app seeds its users, so a shared one made the second end's start fail on a duplicate username. */
const postgresOf: Partial<Record<'oldest' | 'newest', TestDatabase>> = {}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ status: number; stdout: string; stderr: string }> {
  return runCommand(command, args, { cwd, env, timeoutMs: TIMEOUT_MS }).then((r) => ({ ...r, status: r.code ?? -1 }))
}

async function peersFor(end: PeerEnd): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(PACKAGE.peerDependencies).map(async ([name, range]) => [name, end === 'oldest' ? oldestIn(range) : await resolveVersion(name, newestSpec(name, NODE_MAJOR), ROOT)] as const),
  )
  return Object.fromEntries(entries)
}

beforeAll(async () => {
  // The repository's addon for this Node (on Node 22 and 24 not the one in its build/: .ci/with-node).
  keepCompiledSqlite(join(ROOT, 'node_modules', 'better-sqlite3'), repoSqliteAddon())
  work = mkdtempSync(join(tmpdir(), 'gatehouse-peer-ends-'))
  const packed = (await packTarball(work)).file
  // Named by content: the cached app's lockfile then never takes a new tarball for the old one.
  const digest = createHash('sha256').update(readFileSync(packed)).digest('hex').slice(0, 16)
  tarball = join(work, `gatehouse-${digest}.tgz`)
  renameSync(packed, tarball)
  // Without them (a laptop) the app runs on SQLite alone; under CI=true their absence fails the run.
  if (!unavailable('PostgreSQL (DATABASE_URL)', postgresAvailable())) {
    for (const end of ENDS) postgresOf[end] = await freshPostgres({ prefix: 'gh_peer_ends_' })
  }
  unavailable('Redis (REDIS_URL)', process.env['REDIS_URL'] !== undefined)
}, TIMEOUT_MS)

afterAll(async () => {
  await postgresOf.oldest?.drop()
  await postgresOf.newest?.drop()
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
}, TIMEOUT_MS)

describe.each(ENDS)('the tarball with the %s version of every peer', (end) => {
  let app: string
  let peers: Record<string, string>
  let install: { status: number; stdout: string; stderr: string }

  beforeAll(async () => {
    peers = await peersFor(end)
    app = join(work, end)
    const cached = join(CACHE, `${end}-node-abi${process.versions.modules}`)
    if (existsSync(join(cached, 'package.json'))) cpSync(cached, app, { recursive: true })
    else mkdirSync(app, { recursive: true })
    for (const stale of readdirSync(app).filter((name) => /^gatehouse-[0-9a-f]+\.tgz$/.test(name))) rmSync(join(app, stale))
    const local = basename(tarball)
    copyFileSync(tarball, join(app, local))
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify(
        {
          name: `peer-ends-${end}`,
          private: true,
          type: 'module',
          dependencies: { 'drf-gatehouse': `file:./${local}`, ...peers },
          devDependencies: { typescript: TYPESCRIPT, ...typesFor(end, peers, NODE_MAJOR) },
        },
        null,
        2,
      ),
    )
    // Plain: a peer outside gatehouse's ranges fails here with ERESOLVE, as it would for a user.
    install = await run('npm', ['install', '--prefer-offline', ...NPM_INSTALL], app)
    if (install.status === 0) {
      keepCompiledSqlite(join(app, 'node_modules', 'better-sqlite3'))
      // Keep the installed app for the next run (copied, then swapped in whole).
      const next = `${cached}.${process.pid}`
      rmSync(next, { recursive: true, force: true })
      cpSync(app, next, { recursive: true, filter: (source) => !/gatehouse-[0-9a-f]+\.tgz$/.test(source) })
      rmSync(cached, { recursive: true, force: true })
      try {
        renameSync(next, cached)
      } catch {
        rmSync(next, { recursive: true, force: true })
      }
    }
  }, TIMEOUT_MS)

  it('installs with a plain npm install, at the versions asked for', async () => {
    expect(install.stderr.split('\n').filter((line) => /ERESOLVE|ERR!/.test(line))).toEqual([])
    expect(install.status).toBe(0)
    const installed = Object.fromEntries(
      Object.keys(peers).map((name) => [name, (JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version]),
    )
    expect(installed).toEqual(peers)
    if (end === 'oldest') {
      expect(peers).toMatchObject({ kysely: expect.stringMatching(/^0\.28\./), ioredis: expect.stringMatching(/^5\./), express: expect.stringMatching(/^4\./) })
    }
    if (end === 'newest') {
      expect(peers).toMatchObject({ kysely: expect.stringMatching(/^0\.29\./), ioredis: expect.stringMatching(/^6\./), express: expect.stringMatching(/^5\./) })
      // better-sqlite3 13 and later need Node 22: on Node 20 the newest end is the newest 12.x.
      const sqliteMajor = Number(peers['better-sqlite3']?.split('.')[0])
      if (NODE_MAJOR >= 22) expect(sqliteMajor).toBeGreaterThanOrEqual(13)
      else expect(sqliteMajor).toBe(12)
    }
  })

  it(NODE_MAJOR >= 22 ? 'installs without an EBADENGINE warning' : 'warns EBADENGINE only for the packages README names (Node 20)', () => {
    expect(install.status).toBe(0)
    const warned = ebadenginePackages(install.stderr + install.stdout)
    if (NODE_MAJOR >= 22) expect(warned).toEqual([])
    else expect(warned.filter((name) => !EBADENGINE_ON_NODE_20.includes(name))).toEqual([])
  })

  it('type-checks the app (strict, skipLibCheck off) and serves requests on the four frameworks', async () => {
    expect(install.status).toBe(0)
    copyFileSync(join(ROOT, 'test', 'package', 'fixtures', 'peer-app.ts'), join(app, 'app.ts'))
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          exactOptionalPropertyTypes: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          // README's TypeScript note: a `lib` setting needs "DOM" with @hono/node-server 2 (its
          // types use MessageEvent; "ES2023" alone fails); checked here on both ends.
          lib: ['ES2023', 'DOM'],
          skipLibCheck: false,
          outDir: 'build',
          types: ['node'],
        },
        include: ['app.ts'],
      }),
    )
    const tsc = await run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], app)
    expect(tsc.stdout + tsc.stderr).toBe('')
    expect(tsc.status).toBe(0)

    const env: NodeJS.ProcessEnv = { ...process.env }
    const postgres = postgresOf[end]
    if (postgres !== undefined) env['PEER_APP_POSTGRES_URL'] = postgres.url
    if (process.env['REDIS_URL'] !== undefined) env['PEER_APP_REDIS_URL'] = process.env['REDIS_URL']
    const served = await run('node', [join('build', 'app.js'), `sqlite:${join(app, `${end}.sqlite3`)}`], app, env)
    // The whole of what the app printed, so a failure names its cause (the first line of a
    // crash at start-up is only Node's 'node:internal/modules/run_main:…' frame).
    const printed = `exit ${served.status}\n--- stderr\n${served.stderr}\n--- stdout\n${served.stdout}`
    expect(served.stderr, printed).toBe('')
    expect(served.status, printed).toBe(0)
    const seen = JSON.parse(served.stdout) as Record<string, unknown>
    const migrationCounts = [Object.keys(authMigrations('sqlite')).length, Object.keys(jwtBlacklistMigrations('sqlite')).length, 0, 0]
    const answers = (username: string): string[] => [
      '401 {"detail":"Authentication credentials were not provided."}',
      `200 {"username":"${username}"}`,
      `200 {"hello":"${username}"}`,
    ]
    // @fastify/swagger describes the view gatehouse mounted (and the app's own route).
    expect(seen['openapiPaths']).toContain('/api/me/')
    expect(seen).toEqual({
      // Every migration of each set, then none: the second run finds nothing to do.
      migrated: { sqlite: migrationCounts, postgres: postgres === undefined ? null : migrationCounts },
      fastify: answers('alice'),
      openapiPaths: seen['openapiPaths'],
      express: answers('alice'),
      hono: answers('alice'),
      node: answers('alice'),
    })
  }, TIMEOUT_MS)
})
