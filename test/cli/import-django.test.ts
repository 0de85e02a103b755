// `drf-gatehouse import-django` on databases a real Django (the DRF oracle project) wrote, on
// SQLite and PostgreSQL, into gatehouse on SQLite and PostgreSQL; then the reference API
// serves the imported users over HTTP: Django passwords log in (and are rehashed), DRF
// tokens keep working, flags hold, and running the import again changes nothing.
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import { toDate, type AuthDatabase } from '../../src/kysely/schema.js'
import { createRedisClient } from '../../src/redis/redis-client.js'
import { RedisInvalidationBus } from '../../src/redis/redis-invalidation-bus.js'
import type { InvalidationEvent } from '../../src/stores/invalidation-bus.js'
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { createDjangoDatabase, djangoAvailable, dropDjangoTemplates, type DjangoDatabase } from '../helpers/django.js'
import { startReference, TEST_SCRYPT, type RunningReference } from '../helpers/reference-server.js'
import { runCli } from '../helpers/cli-process.js'
import { cliInProcess } from '../helpers/cli-in-process.js'
import type { CommandResult } from '../helpers/run-command.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

const BOB_KEY = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const CAROL_KEY = 'ca7013ca7013ca7013ca7013ca7013ca7013ca70'

/** The real process (`runCli`), with the test run's environment but for DATABASE_URL (and REDIS_URL unless given). */
function gatehouse(args: readonly string[], env: Record<string, string> = {}): Promise<CommandResult> {
  const full: NodeJS.ProcessEnv = { ...process.env, ...env }
  delete full['DATABASE_URL']
  if (env['REDIS_URL'] === undefined) delete full['REDIS_URL']
  return runCli(args, { env: full })
}


/**
 * Users the reference seed lacks, made through Django's own API: a superuser (staff) with a
 * token and a fixed date joined, a superuser who is not staff, a user with no usable
 * password, and one whose hash is argon2 (a hasher gatehouse does not check). Prints root's key.
 */
const EXTRA_USERS = `
from datetime import datetime, timezone
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
root = User.objects.create_superuser('root', 'root@example.com', 'root-pass-5')
User.objects.filter(pk=root.pk).update(date_joined=datetime(2020, 5, 17, 12, 34, 56, 789012, tzinfo=timezone.utc), last_login=datetime(2021, 1, 1, tzinfo=timezone.utc))
boss = User.objects.create_user('boss', password='boss-pass-6')
boss.is_superuser = True
boss.save()
User.objects.create_user('nopass')
argon = User.objects.create_user('argon', password='argon-pass-7')
User.objects.filter(pk=argon.pk).update(password='argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA')
print(Token.objects.create(user=root).key)
`

interface Snapshot {
  readonly users: readonly unknown[]
  readonly tokens: readonly unknown[]
}

/** gatehouse's users and tokens, every column, in a stable order (dates as ISO text). */
async function snapshot(url: string): Promise<Snapshot> {
  const database = await openDatabase<AuthDatabase>(url)
  try {
    const users = await database.db.selectFrom('gatehouse_users').selectAll().orderBy('id').execute()
    const tokens = await database.db.selectFrom('gatehouse_tokens').selectAll().orderBy('key').execute()
    return {
      users: users.map((u) => ({ ...u, id: Number(u.id), date_joined: toDate(u.date_joined).toISOString() })),
      tokens: tokens.map((t) => ({ ...t, user_id: Number(t.user_id), created: toDate(t.created).toISOString() })),
    }
  } finally {
    await database.close()
  }
}

async function storedHash(database: Database<AuthDatabase>, username: string): Promise<string> {
  const row = await database.db.selectFrom('gatehouse_users').select('password').where('username', '=', username).executeTakeFirstOrThrow()
  return row.password
}

function basic(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` }
}

async function get(server: RunningReference, path: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.baseUrl}${path}`, { headers })
  const text = await response.text()
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) }
}

/** Nothing secret in what the command printed: no hash, no token key. */
function expectNoSecrets(run: CommandResult, keys: readonly string[]): void {
  const printed = run.stdout + run.stderr
  expect(printed).not.toMatch(/pbkdf2_sha256\$|argon2\$|scrypt\$/)
  for (const key of keys) expect(printed).not.toContain(key)
}

afterAll(dropDjangoTemplates)

const SOURCES = [
  { engine: 'sqlite' as const, available: djangoAvailable('sqlite') },
  { engine: 'postgres' as const, available: djangoAvailable('postgres') && BACKENDS[1]?.available === true },
]

for (const source of SOURCES) {
  for (const backend of BACKENDS) {
    describe.skipIf(unavailable(`Django on ${source.engine}`, source.available) || backendUnavailable(backend))(`import-django: Django on ${source.engine} → gatehouse on ${backend.name}`, () => {
      let django: DjangoDatabase | null = null
      let target: TestDatabase | null = null
      let server: RunningReference | null = null
      afterEach(async () => {
        await server?.close()
        await target?.drop()
        await django?.drop()
        server = null
        target = null
        django = null
      })

      it('imports users and tokens once; the reference API then logs them in with their Django passwords and DRF tokens', async () => {
        django = await createDjangoDatabase(source.engine)
        const rootKey = (await django.shell(EXTRA_USERS)).trim()
        expect(rootKey).toMatch(/^[0-9a-f]{40}$/)
        target = await backend.create()
        const url = target.url

        const first = await gatehouse(['import-django', '--from', django.url, '--database', url])
        expect(first).toMatchObject({ code: 0, stderr: '' })
        const lines = first.stdout.split('\n')
        expect(lines.slice(0, 3)).toEqual([
          `Django database (${source.engine}): 8 users, 3 tokens`,
          'Users: 8 created, 0 updated, 0 unchanged, 0 skipped',
          'Tokens: 3 created, 0 updated, 0 unchanged, 0 skipped',
        ])
        expect(first.stdout).toContain('1 user has a password hash gatehouse cannot check (argon2): copied as it is; no password logs them in until one is set (drf-gatehouse changepassword <username>): argon\n')
        expect(first.stdout).toContain('1 imported user has no usable password')
        expect(first.stdout).toContain('1 Django superuser is not staff and imported as not staff')
        expectNoSecrets(first, [BOB_KEY, CAROL_KEY, rootKey])

        const imported = await snapshot(url)
        // Django's ids are kept (the app's own tables refer to them), flags and dates copied.
        expect(imported.users.map((u) => u as { id: number; username: string; is_active: number; is_staff: number })).toMatchObject([
          { id: 1, username: 'alice', is_active: 1, is_staff: 0 },
          { id: 2, username: 'bob', is_active: 1, is_staff: 0 },
          { id: 3, username: 'carol', is_active: 0, is_staff: 0 },
          { id: 4, username: 'admin', is_active: 1, is_staff: 1 },
          { id: 5, username: 'root', is_active: 1, is_staff: 1, is_superuser: 1, date_joined: '2020-05-17T12:34:56.789Z' },
          { id: 6, username: 'boss', is_active: 1, is_staff: 0, is_superuser: 1 },
          { id: 7, username: 'nopass', is_active: 1, is_staff: 0 },
          { id: 8, username: 'argon', is_active: 1, is_staff: 0 },
        ])
        expect((imported.users[0] as { password: string }).password).toMatch(/^pbkdf2_sha256\$260000\$/)
        expect((imported.users[6] as { password: string }).password).toMatch(/^!/)
        expect(imported.tokens).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ key: BOB_KEY, user_id: 2 }),
            expect.objectContaining({ key: CAROL_KEY, user_id: 3 }),
            expect.objectContaining({ key: rootKey, user_id: 5 }),
          ]),
        )

        // Again, in this process (the first run above was the real one).
        const second = await cliInProcess(['import-django', '--from', django.url, '--database', url])
        expect(second).toMatchObject({ code: 0, stderr: '' })
        expect(second.stdout).toContain('Users: 0 created, 0 updated, 8 unchanged, 0 skipped\nTokens: 0 created, 0 updated, 3 unchanged, 0 skipped\n')
        expect(await snapshot(url)).toEqual(imported)

        // The users already exist, so the reference API seeds nothing and serves them.
        server = await startReference(target, {}, { dropDatabase: false })
        expect(await get(server, '/api/whoami/', basic('alice', 'alice-pass-1'))).toEqual({ status: 200, body: { username: 'alice', authenticated: true, auth: null } })
        const database = server.ref.database as unknown as Database<AuthDatabase>
        expect(await storedHash(database, 'alice')).toMatch(/^scrypt\$/)
        expect((await get(server, '/api/whoami/', basic('alice', 'alice-pass-1'))).status).toBe(200)
        expect((await get(server, '/api/whoami/', basic('alice', 'wrong-pass'))).status).toBe(401)
        const obtain = await fetch(`${server.baseUrl}/api/auth/token/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'bob', password: 'bob-pass-2' }),
        })
        expect({ status: obtain.status, body: (await obtain.json()) as unknown }).toEqual({ status: 200, body: { token: BOB_KEY } })
        expect(await storedHash(database, 'bob')).toMatch(/^scrypt\$/)
        expect(await get(server, '/api/whoami/', { authorization: `Token ${BOB_KEY}` })).toEqual({ status: 200, body: { username: 'bob', authenticated: true, auth: BOB_KEY } })
        expect(await get(server, '/api/staff/', { authorization: `Token ${rootKey}` })).toEqual({ status: 200, body: { username: 'root', authenticated: true, auth: rootKey } })
        expect(await get(server, '/api/staff/', basic('admin', 'admin-pass-4'))).toMatchObject({ status: 200, body: { username: 'admin' } })
        expect((await get(server, '/api/staff/', basic('boss', 'boss-pass-6'))).status).toBe(403)
        // carol is inactive: neither her password nor her token works.
        expect((await get(server, '/api/whoami/', basic('carol', 'carol-pass-3'))).status).toBe(401)
        expect((await get(server, '/api/whoami/', { authorization: `Token ${CAROL_KEY}` })).status).toBe(401)
        // No password works for the unusable and the argon2 hashes.
        expect((await get(server, '/api/whoami/', basic('argon', 'argon-pass-7'))).status).toBe(401)
        expect((await get(server, '/api/whoami/', basic('nopass', ''))).status).toBe(401)
        const afterLogins = await snapshot(url)
        await server.close()
        server = null

        // Again after the logins: the rehashed passwords are not put back to Django's.
        const third = await cliInProcess(['import-django', '--from', django.url, '--database', url])
        expect(third.stdout).toContain('Users: 0 created, 0 updated, 8 unchanged, 0 skipped\nTokens: 0 created, 0 updated, 3 unchanged, 0 skipped\n')
        expect(await snapshot(url)).toEqual(afterLogins)
      }, 180_000)
    })
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(unavailable('Django (python3-django)', djangoAvailable('sqlite')) || backendUnavailable(backend))(`import-django policies into gatehouse on ${backend.name}`, () => {
    let django: DjangoDatabase | null = null
    let target: TestDatabase | null = null
    afterEach(async () => {
      await target?.drop()
      await django?.drop()
      target = null
      django = null
    })

    it('leaves present users alone by default; --dry-run writes nothing; --update refreshes them but never a password gatehouse set', async () => {
      django = await createDjangoDatabase('sqlite')
      target = await backend.create()
      const url = target.url
      // A user gatehouse already has, with another password and id 1 (Django's alice's id).
      expect(await cliInProcess(['create-user', 'bob', '--staff', '--database', url], { GATEHOUSE_PASSWORD: 'gatehouse-bob-1' })).toMatchObject({ code: 0 })
      const first = await cliInProcess(['import-django', '--from', django.url, '--database', url])
      expect(first).toMatchObject({ code: 0, stderr: '' })
      // bob's Django token is not attached to the bob gatehouse already had (that needs --update).
      expect(first.stdout).toContain('Users: 3 created, 0 updated, 1 unchanged, 0 skipped\nTokens: 1 created, 0 updated, 1 unchanged, 0 skipped\n')
      expect(first.stdout).toContain('1 user already in gatehouse has a Django token that was not attached (--update attaches it): bob\n')
      expect(first.stdout).toContain('user alice: Django id 1 is taken in gatehouse (or is not a number it can hold), imported as id 5\n')
      expect(first.stdout).toContain('1 user already in gatehouse differs from Django')
      const database = await openDatabase<AuthDatabase>(url)
      try {
        const users = new KyselyUserStore({ db: database.db, scrypt: TEST_SCRYPT })
        // bob kept gatehouse's password and staff flag, and got no token.
        expect(await users.authenticate('bob', 'gatehouse-bob-1')).toMatchObject({ username: 'bob', isStaff: true })
        expect(await users.authenticate('bob', 'bob-pass-2')).toBeNull()
        expect(await database.db.selectFrom('gatehouse_tokens').select('key').where('user_id', '=', 1).executeTakeFirst()).toBeUndefined()

        // Django changes: carol active again, alice's password and bob's token changed.
        await django.shell(
          [
            'from django.contrib.auth.models import User',
            'from rest_framework.authtoken.models import Token',
            "User.objects.filter(username='carol').update(is_active=True)",
            "alice = User.objects.get(username='alice')",
            "alice.set_password('alice-new-1')",
            'alice.save()',
            "Token.objects.filter(user__username='bob').delete()",
            "Token.objects.create(user=User.objects.get(username='bob'), key='b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0beef')",
          ].join('\n'),
        )
        const before = await snapshot(url)
        const plain = await cliInProcess(['import-django', '--from', django.url, '--database', url])
        expect(plain.stdout).toContain('Users: 0 created, 0 updated, 4 unchanged, 0 skipped\nTokens: 0 created, 0 updated, 2 unchanged, 0 skipped\n')
        expect(plain.stdout).toContain('3 users already in gatehouse differ from Django')
        expect(plain.stdout).toContain('1 user already in gatehouse has a Django token that was not attached (--update attaches it): bob\n')
        expect(await snapshot(url)).toEqual(before)

        const dry = await cliInProcess(['import-django', '--update', '--dry-run', '--from', django.url, '--database', url])
        expect(dry).toMatchObject({ code: 0, stderr: '' })
        expect(dry.stdout).toContain('Users: 0 would be created, 3 would be updated, 1 unchanged, 0 skipped\nTokens: 1 would be created, 0 would be updated, 1 unchanged, 0 skipped\n')
        expect(dry.stdout).toContain('Django tokens would be attached to 1 user already in gatehouse (their accounts would accept those keys): bob\n')
        expect(dry.stdout).toMatch(/Dry run: nothing was written\n$/)
        expect(await snapshot(url)).toEqual(before)

        const update = await cliInProcess(['import-django', '--update', '--from', django.url, '--database', url])
        // Users changed and no Redis named: running servers were not told, and it says so.
        expect(update).toMatchObject({ code: 0, stderr: expect.stringMatching(/^gatehouse: warning: running servers were not told \(no --redis, REDIS_URL or REDIS_CLUSTER_NODES\)/) })
        expect(update.stdout).toContain('Users: 0 created, 3 updated, 1 unchanged, 0 skipped\nTokens: 1 created, 0 updated, 1 unchanged, 0 skipped\n')
        expect(update.stdout).toContain('Django tokens attached to 1 user already in gatehouse (their accounts now accept those keys): bob\n')
        expectNoSecrets(update, [BOB_KEY, CAROL_KEY, 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0beef'])
        expect(await users.authenticate('alice', 'alice-new-1')).toMatchObject({ username: 'alice' })
        expect(await users.authenticate('carol', 'carol-pass-3')).toMatchObject({ username: 'carol', isActive: true })
        // bob's password was set by gatehouse (scrypt): kept; his flags now follow Django (not staff).
        expect(await users.authenticate('bob', 'gatehouse-bob-1')).toMatchObject({ username: 'bob', isStaff: false })
        const newBob = await database.db.selectFrom('gatehouse_tokens').select('key').where('user_id', '=', 1).executeTakeFirstOrThrow()
        expect(newBob.key).toBe('b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0beef')

        const after = await snapshot(url)
        const again = await cliInProcess(['import-django', '--update', '--from', django.url, '--database', url])
        expect(again.stdout).toContain('Users: 0 created, 0 updated, 4 unchanged, 0 skipped\nTokens: 0 created, 0 updated, 2 unchanged, 0 skipped\n')
        expect(await snapshot(url)).toEqual(after)
      } finally {
        await database.close()
      }
    }, 180_000)

    it('--superusers-as-staff; a database without Django tables or DRF tokens; bad --from URLs', async () => {
      django = await createDjangoDatabase('sqlite')
      await django.shell("from django.contrib.auth.models import User\nu = User.objects.create_user('boss', password='boss-pass-6')\nu.is_superuser = True\nu.save()")
      target = await backend.create()
      const url = target.url
      const run = await cliInProcess(['import-django', '--superusers-as-staff', '--from', django.url, '--database', url])
      expect(run).toMatchObject({ code: 0, stderr: '' })
      expect(run.stdout).not.toContain('superuser')
      const boss = (await snapshot(url)).users.find((u) => (u as { username: string }).username === 'boss')
      expect(boss).toMatchObject({ is_staff: 1 })

      // gatehouse's own database is no Django database.
      expect(await gatehouse(['import-django', '--from', url, '--database', url])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'gatehouse: the --from database has no auth_user table: is it a Django database (after manage.py migrate)?\n',
      })
      expect(await cliInProcess(['import-django', '--from', 'mysql://django@db/app', '--database', url])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^gatehouse: --from: /) })
      expect(await gatehouse(['import-django', '--from', 'sqlite:/nonexistent/db.sqlite3', '--database', url])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^gatehouse: cannot open the --from SQLite database \/nonexistent\/db\.sqlite3/),
      })
      expect((await cliInProcess(['import-django', '--database', url])).code).toBe(1)
      const refused = await cliInProcess(['import-django', '--from', 'postgres://django:s3cret-pw@127.0.0.1:1/app', '--database', url])
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^gatehouse: cannot connect to the --from database postgres:\/\/\*\*\*@127\.0\.0\.1:1\/app: /) })
      expect(refused.stderr).not.toContain('s3cret-pw')
    }, 180_000)
  })
}

for (const source of SOURCES) {
  describe.skipIf(unavailable(`Django on ${source.engine}`, source.available))(`import-django into the Django database itself (${source.engine})`, () => {
    let django: DjangoDatabase | null = null
    afterEach(async () => {
      await django?.drop()
      django = null
    })

    it("puts gatehouse's tables beside Django's and imports into them; Django's rows are untouched", async () => {
      django = await createDjangoDatabase(source.engine)
      const djangoRows = "import hashlib\nfrom django.contrib.auth.models import User\nfrom rest_framework.authtoken.models import Token\nprint(hashlib.sha256(repr([list(User.objects.order_by('id').values_list()), list(Token.objects.order_by('key').values_list())]).encode()).hexdigest())"
      const djangoBefore = await django.shell(djangoRows)
      const first = await cliInProcess(['import-django', '--from', django.url, '--database', django.url])
      expect(first).toMatchObject({ code: 0, stderr: '' })
      expect(first.stdout).toContain('Users: 4 created, 0 updated, 0 unchanged, 0 skipped\nTokens: 2 created, 0 updated, 0 unchanged, 0 skipped\n')
      const imported = await snapshot(django.url)
      expect(imported.users.map((u) => (u as { username: string }).username)).toEqual(['alice', 'bob', 'carol', 'admin'])
      const second = await cliInProcess(['import-django', '--from', django.url, '--database', django.url])
      expect(second.stdout).toContain('Users: 0 created, 0 updated, 4 unchanged, 0 skipped\n')
      expect(await snapshot(django.url)).toEqual(imported)
      // Django reads its own users and tokens as they were.
      expect(await django.shell(djangoRows)).toBe(djangoBefore)
      expect(djangoBefore).toMatch(/^[0-9a-f]{64}\n$/)
    }, 180_000)
  })
}

describe.skipIf(unavailable('Django (python3-django)', djangoAvailable('sqlite')) || unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('import-django --update tells running servers through Redis', () => {
  it('publishes the ids of the users it changed on --channel', async () => {
    const django = await createDjangoDatabase('sqlite')
    const target = BACKENDS[0] === undefined ? null : await BACKENDS[0].create()
    const redis = createRedisClient(REDIS_URL ?? '', { onError: () => {} })
    const channel = `${uniquePrefix()}auth-invalidation`
    const bus = new RedisInvalidationBus({ redis, channel })
    const heard: InvalidationEvent[] = []
    const unsubscribe = bus.subscribe((event) => void heard.push(event))
    try {
      const url = target?.url ?? ''
      expect((await cliInProcess(['import-django', '--from', django.url, '--database', url])).code).toBe(0)
      await django.shell("from django.contrib.auth.models import User\nUser.objects.filter(username='carol').update(is_active=True)")
      await expect.poll(() => bus.listening, { timeout: 5_000, interval: 20 }).toBe(true)
      const update = await gatehouse(['import-django', '--update', '--from', django.url, '--database', url, '--channel', channel], { REDIS_URL: REDIS_URL ?? '' })
      expect(update).toMatchObject({ code: 0, stderr: '' })
      expect(update.stdout).toContain('Users: 0 created, 1 updated, 3 unchanged, 0 skipped\n')
      await expect.poll(() => heard, { timeout: 5_000, interval: 20 }).toContainEqual({ type: 'user', userId: 3 })
      expect(heard.filter((event) => event.type === 'user').map((event) => (event as { userId: unknown }).userId)).toEqual([3])
    } finally {
      unsubscribe()
      await bus.close()
      await redis.close()
      await target?.drop()
      await django.drop()
    }
  }, 180_000)
})
