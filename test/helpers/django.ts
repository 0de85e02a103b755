import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ORACLE_RUN_SH } from '../oracle/oracle-server.js'
import { freshPostgres } from './databases.js'
import { runCommand, type CommandResult } from './run-command.js'

/** The DRF oracle's Django project (its `manage.py`), used only to write databases a real Django made. */
export const ORACLE_DIR = dirname(ORACLE_RUN_SH)
/** Holds `pg_settings.py`: the oracle's settings on PostgreSQL. */
const PG_SETTINGS_DIR = fileURLToPath(new URL('./django', import.meta.url))
const PYTHON = '/usr/bin/python3'
const RESET_SEQUENCES = [
  'from django.apps import apps',
  'from django.core.management.color import no_style',
  'from django.db import connection',
  'with connection.cursor() as cursor:',
  '    for statement in connection.ops.sequence_reset_sql(no_style(), apps.get_models()):',
  '        cursor.execute(statement)',
].join('\n')

/** True when Debian's Django + DRF and the oracle project are there; `postgres` also needs psycopg2. */
export function djangoAvailable(engine: 'sqlite' | 'postgres'): boolean {
  const modules = engine === 'postgres' ? 'rest_framework, django, psycopg2' : 'rest_framework, django'
  return existsSync(join(ORACLE_DIR, 'manage.py')) && spawnSync(PYTHON, ['-c', `import ${modules}`], { stdio: 'ignore' }).status === 0
}

/** A database written by a real Django (the oracle project): migrated and seeded with the reference users. */
export interface DjangoDatabase {
  readonly engine: 'sqlite' | 'postgres'
  /** Its URL for `drf-gatehouse import-django --from`. */
  readonly url: string
  /** Runs `manage.py <args>` on it; rejects when it fails. */
  manage(args: readonly string[], env?: Record<string, string>): Promise<CommandResult>
  /** Runs Python in `manage.py shell -c` on it; resolves to what it printed. */
  shell(code: string): Promise<string>
  drop(): Promise<void>
}

interface SeededSource {
  /** `sqlite:<file>` or `postgres://…/<database>`. */
  readonly url: string
  readonly drop: () => Promise<void>
}

/** The `manage.py` environment of a Django database: the oracle's settings on SQLite, `pg_settings` on PostgreSQL. */
function djangoEnv(engine: 'sqlite' | 'postgres', url: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }
  for (const name of ['PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV']) delete env[name]
  if (engine === 'sqlite') return Object.assign(env, { ORACLE_DB: url.slice('sqlite:'.length), DJANGO_SETTINGS_MODULE: 'oracle_site.settings' })
  const parsed = new URL(url)
  return Object.assign(env, {
    DJANGO_SETTINGS_MODULE: 'pg_settings',
    PYTHONPATH: PG_SETTINGS_DIR,
    DJANGO_PG_NAME: parsed.pathname.slice(1),
    DJANGO_PG_USER: decodeURIComponent(parsed.username) || 'postgres',
    DJANGO_PG_PASSWORD: decodeURIComponent(parsed.password),
    DJANGO_PG_HOST: parsed.hostname,
    DJANGO_PG_PORT: parsed.port || '5432',
  })
}

async function manageOn(env: NodeJS.ProcessEnv, args: readonly string[], extra: Record<string, string> = {}): Promise<CommandResult> {
  const result = await runCommand(PYTHON, ['manage.py', ...args], { cwd: ORACLE_DIR, env: { ...env, ...extra }, timeoutMs: 120_000 })
  if (result.code !== 0) throw new Error(`manage.py ${args[0] ?? ''} failed (${String(result.code)}): ${result.stderr}`)
  return result
}

/** An empty SQLite file in a new temporary folder, or a new PostgreSQL database (from `template` when given). */
async function newDatabase(engine: 'sqlite' | 'postgres', template?: SeededSource): Promise<SeededSource> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-django-'))
    const file = join(dir, 'db.sqlite3')
    if (template !== undefined) copyFileSync(template.url.slice('sqlite:'.length), file)
    return { url: `sqlite:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const templateName = template === undefined ? undefined : new URL(template.url).pathname.slice(1)
  const database = await freshPostgres({ prefix: 'gh_django_', ...(templateName === undefined ? {} : { template: templateName }) })
  return { url: database.url, drop: () => database.drop() }
}

const seeded = new Map<'sqlite' | 'postgres', Promise<SeededSource>>()

/**
 * One database per engine per test process that Django migrated and seeded (`manage.py
 * migrate`, `seed_reference`: a few seconds of Python each time); every test gets a copy.
 */
function seededTemplate(engine: 'sqlite' | 'postgres'): Promise<SeededSource> {
  let template = seeded.get(engine)
  if (template === undefined) {
    template = (async () => {
      const database = await newDatabase(engine)
      const env = djangoEnv(engine, database.url)
      try {
        await manageOn(env, ['migrate', '--noinput', '-v', '0'])
        await manageOn(env, ['seed_reference'])
        // The seed inserts explicit ids: PostgreSQL's sequences must move past them (as `manage.py sqlsequencereset` says).
        if (engine === 'postgres') await manageOn(env, ['shell', '-c', RESET_SEQUENCES])
      } catch (error) {
        await database.drop()
        throw error
      }
      return database
    })()
    seeded.set(engine, template)
  }
  return template
}

/** Drops the per-process seeded databases (call in the test file's `afterAll`). */
export async function dropDjangoTemplates(): Promise<void> {
  const templates = [...seeded.values()]
  seeded.clear()
  for (const template of templates) await (await template).drop()
}

/**
 * Makes a fresh Django database: a copy of one that the oracle project's `manage.py migrate`
 * and `manage.py seed_reference` wrote (alice, bob, carol inactive, admin staff; tokens of bob
 * and carol), on a SQLite file in a temporary folder or on a fresh PostgreSQL database
 * (`DATABASE_URL`'s server). Nothing is written into the oracle's folder.
 */
export async function createDjangoDatabase(engine: 'sqlite' | 'postgres'): Promise<DjangoDatabase> {
  const database = await newDatabase(engine, await seededTemplate(engine))
  const env = djangoEnv(engine, database.url)
  const manage = (args: readonly string[], extra: Record<string, string> = {}): Promise<CommandResult> => manageOn(env, args, extra)
  return {
    engine,
    url: database.url,
    manage,
    shell: async (code) => (await manage(['shell', '-c', code])).stdout,
    drop: database.drop,
  }
}
