/**
 * The package as a user gets it: `npm pack`, then install the tarball into a scratch app
 * outside the repo (no link back to the repo's node_modules) and use it from there.
 * Needs the npm registry (the peers the scratch app installs), like `npm ci` does.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packTarball } from '../helpers/npm-pack.js'
import { runCommand } from '../helpers/run-command.js'
import { repoSqliteAddon } from './sqlite-prebuilds.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>
  peerDependencies: Record<string, string>
}
/** The oldest TypeScript the declarations are checked with (Fastify 5's own types need 5.4). */
const OLDEST_TYPESCRIPT = '5.4'
const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error']

let work: string
let app: string
let tarball: string
let tarballFiles: string[]

/**
 * Writes `lines` as `file` in the scratch `app` and type-checks it alone with the package's
 * installed TypeScript: strict, exact optional properties, skipLibCheck off (every declaration
 * of the package and its peers read), plus `options` (module system, lib, global types).
 */
function typeCheck(app: string, file: string, options: Record<string, unknown>, lines: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const config = `tsconfig.${file.replace(/\.ts$/, '')}.json`
  const compilerOptions = { strict: true, exactOptionalPropertyTypes: true, target: 'ES2022', skipLibCheck: false, noEmit: true, ...options }
  writeFileSync(join(app, config), JSON.stringify({ compilerOptions, files: [file] }))
  writeFileSync(join(app, file), lines.join('\n'))
  return run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', config], app)
}

/** `runCommand` in `cwd`, at most 4 minutes (npm pack and installs are slow on a busy machine). */
function run(command: string, args: readonly string[], cwd: string, input?: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return runCommand(command, args, { cwd, timeoutMs: 240_000, ...(input === undefined ? {} : { input }) }).then((r) => ({ ...r, status: r.code ?? -1 }))
}

function installedPackages(dir: string): string[] {
  const modules = join(dir, 'node_modules')
  if (!existsSync(modules)) return []
  return readdirSync(modules).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : name.startsWith('.') ? [] : [name],
  )
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'))
  const packed = await packTarball(work)
  tarball = packed.file
  tarballFiles = [...packed.files]
  app = join(work, 'app')
  mkdirSync(app, { recursive: true })
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }))
  const installed = await run('npm', ['install', ...NPM_QUIET, tarball], app)
  if (installed.status !== 0) throw new Error(`npm install of the tarball failed: ${installed.stderr}`)
}, 900_000)

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

describe('the packed tarball', () => {
  it('ships compiled code, declarations and docs, and nothing of the tests, benchmarks, CI or the TypeScript tree', () => {
    expect(tarballFiles).toContain('dist/index.js')
    expect(tarballFiles).toContain('dist/index.d.ts')
    expect(tarballFiles).toContain('README.md')
    expect(tarballFiles).toContain('LICENSE')
    expect(tarballFiles).toContain('CHANGELOG.md')
    const unwanted = tarballFiles.filter(
      (path) =>
        /(^|\/)[^/]+\.test\.[jt]s/.test(path) ||
        /^(test|bench|scripts|examples|\.ci|src)\//.test(path) ||
        // Maps would point at src/, which is not shipped; screenshots live in the repository.
        path.endsWith('.map') ||
        path.endsWith('.png') ||
        path === 'BENCHMARKS.md',
    )
    expect(unwanted).toEqual([])
  })

  it('unpacks to at most 2.5 MB, the declarations and docs included', async () => {
    // `tar tvzf` lists each file's size in its third column.
    const listing = await run('tar', ['tvzf', tarball], work)
    const sizes = listing.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => Number(line.trim().split(/\s+/)[2]))
    expect(sizes.every((size) => Number.isInteger(size))).toBe(true)
    const total = sizes.reduce((sum, size) => sum + size, 0)
    expect(total).toBeGreaterThan(500_000)
    expect(total).toBeLessThanOrEqual(2_500_000)
  })

  it('installs alone without any framework, driver or native module', () => {
    const installed = installedPackages(app)
    for (const peer of Object.keys(PACKAGE.peerDependencies)) expect(installed).not.toContain(peer)
    const native = installed.filter((name) => existsSync(join(app, 'node_modules', name, 'binding.gyp')))
    expect(native).toEqual([])
  })

  it('loads its root entry with no peer installed', async () => {
    const result = await run('node', ['--input-type=module', '-e', "const m = await import('drf-gatehouse'); console.log(typeof m.createApi)"], app)
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('function')
  })

  it('does not load jose from its root entry: only gatehouse/jwt and gatehouse/oauth2 do', async () => {
    // A resolve hook that refuses `jose`: importing an entry that reaches it fails. gatehouse/jwt
    // is the control that shows the hook bites.
    writeFileSync(join(app, 'refuse-jose-hooks.mjs'), "export async function resolve(specifier, context, next) { if (specifier === 'jose') throw new Error('jose loaded'); return next(specifier, context) }\n")
    writeFileSync(join(app, 'refuse-jose.mjs'), "import { register } from 'node:module'\nregister('./refuse-jose-hooks.mjs', import.meta.url)\n")
    const load = (specifier: string) =>
      run('node', ['--import', './refuse-jose.mjs', '--input-type=module', '-e', `const m = await import('${specifier}'); console.log(Object.keys(m).length)`], app)
    const root = await load('drf-gatehouse')
    expect(root.stderr).toBe('')
    expect(Number(root.stdout.trim())).toBeGreaterThan(0)
    for (const specifier of ['drf-gatehouse/http', 'drf-gatehouse/node']) expect((await load(specifier)).stderr, specifier).toBe('')
    for (const specifier of ['drf-gatehouse/jwt', 'drf-gatehouse/oauth2']) expect((await load(specifier)).stderr, specifier).toContain('jose loaded')
  })

  it('runs the command line with no peer installed: --help, and a command that needs kysely says so in one line', async () => {
    const bin = join(app, 'node_modules', '.bin', 'drf-gatehouse')
    const help = await run(bin, ['--help'], app)
    expect(help.stderr).toBe('')
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('create-token')
    const commandHelp = await run(bin, ['create-user', '--help'], app)
    expect(commandHelp.stderr).toBe('')
    expect(commandHelp.stdout).toContain('--database <url>')
    // No stack trace: the one line names the package to install, and the exit code is not 0.
    const migrated = await run(bin, ['migrate', '--database', `sqlite:${join(work, 'no-peers.sqlite3')}`], app)
    expect(migrated.stderr).toBe('gatehouse: this command needs the kysely package, which is not installed: npm install kysely\n')
    expect(migrated.stdout).toBe('')
    expect(migrated.status).toBe(1)
    expect(existsSync(join(work, 'no-peers.sqlite3'))).toBe(false)
  })

  describe('with the peers an app would install', () => {
    beforeAll(async () => {
      // hono is installed for the import check only: its own declarations need TypeScript >= 5.7
      // (generic Uint8Array), newer than the oldest version checked here.
      const peers = ['kysely', 'fastify', 'express', '@types/express', 'hono', 'ioredis', 'pg', '@libsql/kysely-libsql', 'kysely-d1', '@neondatabase/serverless', '@cloudflare/workers-types', `typescript@${OLDEST_TYPESCRIPT}`, '@types/node@20']
      const installed = await run('npm', ['install', ...NPM_QUIET, ...peers], app)
      if (installed.status !== 0) throw new Error(`npm install of the peers failed: ${installed.stderr}`)
      // better-sqlite3 is native: copy the repo's built copy rather than compiling it again (a copy, not a link).
      for (const name of ['better-sqlite3', 'bindings', 'file-uri-to-path']) {
        cpSync(join(ROOT, 'node_modules', name), join(app, 'node_modules', name), { recursive: true })
      }
      // Its addon for this Node (under .ci/with-node on Node 22 and 24, not the one in its build/).
      copyFileSync(repoSqliteAddon(), join(app, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))
    }, 240_000)

    it('imports every entry of "exports"', async () => {
      const entries = Object.keys(PACKAGE.exports).filter((key) => key !== './package.json')
      expect(entries).toEqual(expect.arrayContaining(['.', './kysely', './d1', './libsql', './neon', './redis', './fastify', './express', './hono', './node', './testing', './http', './jwt', './oauth2', './setup', './admin']))
      for (const entry of entries) {
        const specifier = entry === '.' ? 'drf-gatehouse' : `drf-gatehouse/${entry.slice(2)}`
        const result = await run('node', ['--input-type=module', '-e', `const m = await import('${specifier}'); console.log(Object.keys(m).length)`], app)
        expect(result.stderr, specifier).toBe('')
        expect(Number(result.stdout.trim()), specifier).toBeGreaterThan(0)
      }
    })

    it(`type-checks a strict app against the declarations with TypeScript ${OLDEST_TYPESCRIPT} (skipLibCheck off)`, async () => {
      const result = await typeCheck(
        app,
        'app.ts',
        { module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] },
        [
          "import { createApi, TokenAuthentication, IsAuthenticated, PageNumberPagination, type ApiRequest, type User } from 'drf-gatehouse'",
          "import { KyselyTokenStore, KyselyUserStore, openDatabase, type AuthDatabase } from 'drf-gatehouse/kysely'",
          "import { mountRoutes } from 'drf-gatehouse/fastify'",
          "import { createRedisClient } from 'drf-gatehouse/redis'",
          "import { viewHandler } from 'drf-gatehouse/node'",
          "import { adminRoutes } from 'drf-gatehouse/admin'",
          "import { createGatehouse } from 'drf-gatehouse/setup'",
          "import { policies as expressPolicies } from 'drf-gatehouse/express'",
          "void expressPolicies",
          "import { runSessionStoreSuite, runThrottleStoreSuite, runTokenStoreSuite, runUserStoreSuite, type TestApi } from 'drf-gatehouse/testing'",
          "import { KyselySessionStore, authMigrations, migrate, type TokenSessionDatabase, type UserTableOf } from 'drf-gatehouse/kysely'",
          "import type { Generated, Kysely } from 'kysely'",
          '// The app\'s own tables beside gatehouse\'s: every store takes Kysely<AppDb> without a cast.',
          'interface AppDb extends AuthDatabase { books: { id: Generated<number>; title: string } }',
          'const database = await openDatabase<AppDb>(\'sqlite::memory:\')',
          'await migrate(database.db, authMigrations(database.dialect))',
          'const users = new KyselyUserStore({ db: database.db })',
          'const tokens = new KyselyTokenStore({ db: database.db })',
          'const sessions = new KyselySessionStore({ db: database.db, now: Date.now })',
          '// Its own users table keyed by UUID, described as plain data (a UserTable).',
          'interface OwnDb extends TokenSessionDatabase<string> { accounts: { account_id: string; email: string; pw_hash: string; enabled: boolean } }',
          'declare const own: Kysely<OwnDb>',
          "const accountsTable: UserTableOf<OwnDb> = { table: 'accounts', columns: { id: 'account_id', username: 'email', password: 'pw_hash', isActive: 'enabled' }, idType: 'uuid' }",
          "const accounts = new KyselyUserStore({ db: own, userTable: accountsTable })",
          "console.log(new KyselyTokenStore({ db: own, joinUsers: accountsTable }).findWithUser)",
          "// @ts-expect-error a column the table does not have",
          "new KyselyUserStore({ db: own, userTable: { table: 'accounts', columns: { id: 'account_id', username: 'mail', password: 'pw_hash' }, idType: 'uuid' } })",
          'declare const api_: TestApi',
          'runUserStoreSuite({ ...api_, create: () => accounts })',
          'runTokenStoreSuite({ ...api_, create: () => tokens, createUser: async () => (await users.create({ username: \'u\', password: null })).id })',
          'runSessionStoreSuite({ ...api_, create: (now) => new KyselySessionStore({ db: database.db, now }), createUser: async () => 1 })',
          'runThrottleStoreSuite({ ...api_, create: () => ({ hit: async () => ({ allowed: true, count: 1, oldest: null }) }) })',
          'console.log(sessions)',
          'const api = createApi({ authentication: [new TokenAuthentication({ tokens, users })], permissions: [new IsAuthenticated()], pagination: new PageNumberPagination(), pageSize: 10 })',
          'const describeUser = (request: ApiRequest, user: User): string => `${request.method} ${String(user.username)}`',
          'console.log(api, describeUser, mountRoutes, createRedisClient, viewHandler)',
          '// The admin pages take the same stores (KyselyUserStore has list, setActive, setPassword).',
          'console.log(adminRoutes({ api, users, sessions, tokens }).length)',
          '// One setup call: the same stores, wired once.',
          "const auth = await createGatehouse({ database: 'sqlite::memory:', tokenCache: { ttlMs: 60_000 } })",
          'console.log(createApi({ authentication: auth.authentication }), auth.users.userTable, auth.schemes.basic)',
          'await auth.close()',
          '',
        ],
      )
      expect(result.stdout + result.stderr).toBe('')
      expect(result.status).toBe(0)
      // tsc reads every declaration of the package and its peers (skipLibCheck off): tens of seconds on a loaded 2-core machine.
    }, 180_000)

    it(`type-checks a Worker against the declarations with @cloudflare/workers-types and TypeScript ${OLDEST_TYPESCRIPT}: ThrottleCounter bound as \`wrangler types\` writes it`, async () => {
      const result = await typeCheck(
        app,
        'worker.ts',
        { module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022'], types: ['@cloudflare/workers-types'] },
        [
          "import { ThrottleCounter, openD1 } from 'drf-gatehouse/d1'",
          "import { UserRateThrottle } from 'drf-gatehouse'",
          "import { KyselyTokenStore, type AuthDatabase } from 'drf-gatehouse/kysely'",
          'export { ThrottleCounter }',
          '// `wrangler types` binds an exported Durable Object class as DurableObjectNamespace<Class>,',
          '// which takes only classes with the workers-types brand.',
          'interface Env { DB: D1Database; THROTTLES: DurableObjectNamespace<ThrottleCounter> }',
          'export default {',
          '  async fetch(request, env) {',
          '    const { db } = openD1<AuthDatabase>(env.DB)',
          '    const tokens = new KyselyTokenStore({ db })',
          "    const throttle = new UserRateThrottle({ store: ThrottleCounter.store(env.THROTTLES), rate: '10/min' })",
          '    return Response.json({ tokens: typeof tokens, throttle: typeof throttle, method: request.method })',
          '  },',
          '} satisfies ExportedHandler<Env>',
          '',
        ],
      )
      expect(result.stdout + result.stderr).toBe('')
      expect(result.status).toBe(0)
    }, 180_000)

    it('runs the command line: --help, and migrate on an empty SQLite file writes tables and no rows', async () => {
      const bin = join(app, 'node_modules', '.bin', 'drf-gatehouse')
      const help = await run(bin, ['--help'], app)
      expect(help.status).toBe(0)
      expect(help.stdout).toContain('migrate')
      const file = join(work, 'app.sqlite3')
      const migrated = await run(bin, ['migrate', '--database', `sqlite:${file}`], app)
      expect(migrated.stderr).toBe('')
      expect(migrated.status).toBe(0)
      const check = await run(
        'node',
        [
          '--input-type=module',
          '-e',
          [
            "import Database from 'better-sqlite3'",
            `const db = new Database(${JSON.stringify(file)}, { readonly: true })`,
            "const tables = db.prepare(\"select name from sqlite_master where type = 'table' and name not like 'sqlite_%'\").all().map((r) => r.name)",
            'const rows = Object.fromEntries(tables.map((t) => [t, db.prepare(`select count(*) as n from "${t}"`).get().n]))',
            'console.log(JSON.stringify(rows))',
          ].join('\n'),
        ],
        app,
      )
      expect(check.stderr).toBe('')
      const rows = JSON.parse(check.stdout) as Record<string, number>
      expect(Object.keys(rows)).toEqual(expect.arrayContaining(['gatehouse_users', 'gatehouse_tokens', 'gatehouse_sessions']))
      const dataRows = Object.entries(rows).filter(([table, count]) => !table.includes('migration') && count > 0)
      expect(dataRows).toEqual([])
    })
  })
})
