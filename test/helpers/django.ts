import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ORACLE_RUN_SH } from '../oracle/oracle-server.js'
import { freshPostgres } from './databases.js'
import { runCommand, type CommandResult } from './run-command.js'

/** The DRF oracle's Django project (its `manage.py`), used only to write databases a real Django made. */
export const ORACLE_DIR = dirname(ORACLE_RUN_SH)
/** Holds `pg_settings.py`: the oracle's settings on PostgreSQL. */
const PG_SETTINGS_DIR = fileURLToPath(new URL('../django', import.meta.url))
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
  /** Its URL for `gatehouse import-django --from`. */
  readonly url: string
  /** Runs `manage.py <args>` on it; rejects when it fails. */
  manage(args: readonly string[], env?: Record<string, string>): Promise<CommandResult>
  /** Runs Python in `manage.py shell -c` on it; resolves to what it printed. */
  shell(code: string): Promise<string>
  drop(): Promise<void>
}

/**
 * Makes a fresh Django database: `manage.py migrate` and `manage.py seed_reference` of the
 * oracle project (alice, bob, carol inactive, admin staff; tokens of bob and carol), on a
 * SQLite file in a temporary folder or on a fresh PostgreSQL database (`DATABASE_URL`'s server).
 * Nothing is written into the oracle's folder.
 */
export async function createDjangoDatabase(engine: 'sqlite' | 'postgres'): Promise<DjangoDatabase> {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }
  for (const name of ['PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV']) delete env[name]
  let url: string
  let drop: () => Promise<void>
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-django-'))
    const file = join(dir, 'db.sqlite3')
    Object.assign(env, { ORACLE_DB: file, DJANGO_SETTINGS_MODULE: 'oracle_site.settings' })
    url = `sqlite:${file}`
    drop = async () => rmSync(dir, { recursive: true, force: true })
  } else {
    const database = await freshPostgres({ prefix: 'gh_django_' })
    const parsed = new URL(database.url)
    Object.assign(env, {
      DJANGO_SETTINGS_MODULE: 'pg_settings',
      PYTHONPATH: PG_SETTINGS_DIR,
      DJANGO_PG_NAME: parsed.pathname.slice(1),
      DJANGO_PG_USER: decodeURIComponent(parsed.username) || 'postgres',
      DJANGO_PG_PASSWORD: decodeURIComponent(parsed.password),
      DJANGO_PG_HOST: parsed.hostname,
      DJANGO_PG_PORT: parsed.port || '5432',
    })
    url = database.url
    drop = () => database.drop()
  }
  const manage = async (args: readonly string[], extra: Record<string, string> = {}): Promise<CommandResult> => {
    const result = await runCommand(PYTHON, ['manage.py', ...args], { cwd: ORACLE_DIR, env: { ...env, ...extra }, timeoutMs: 120_000 })
    if (result.code !== 0) throw new Error(`manage.py ${args[0] ?? ''} failed (${String(result.code)}): ${result.stderr}`)
    return result
  }
  try {
    await manage(['migrate', '--noinput', '-v', '0'])
    await manage(['seed_reference'])
    // The seed inserts explicit ids: PostgreSQL's sequences must move past them (as `manage.py sqlsequencereset` says).
    if (engine === 'postgres') await manage(['shell', '-c', RESET_SEQUENCES])
  } catch (error) {
    await drop()
    throw error
  }
  return {
    engine,
    url,
    manage,
    shell: async (code) => (await manage(['shell', '-c', code])).stdout,
    drop,
  }
}
