import { spawnSync } from 'node:child_process'
import { appendFileSync, copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freshPostgres, postgresAvailable, type TestDatabase } from '../../helpers/databases.js'
import { ORACLE_RUN_SH, oracleAvailable, startOracle } from '../oracle-process.js'

/**
 * The DRF oracle with simplejwt 5.2.2 added (issue 25): a copy of `shared/oracle-drf` made at
 * test time, with test/oracle/simplejwt/oracle/settings_overlay.py appended to its settings and
 * test/oracle/simplejwt/oracle/jwt_urls.py as its URLconf (simplejwt's four views and a JWT-only who-am-I).
 */

/** The signing key both servers share: simplejwt's `SIGNING_KEY`, gatehouse's `GATEHOUSE_JWT_SIGNING_KEY`. */
export const JWT_ORACLE_KEY = 'django-insecure-jwt-oracle-key-0123456789abcdefghij'

/** The databases a simplejwt oracle can run on, one server each. */
export type OracleDatabase = 'sqlite' | 'postgres'

/** simplejwt's settings: its defaults, or `ROTATE_REFRESH_TOKENS` and `BLACKLIST_AFTER_ROTATION` on. */
export type OracleSettings = 'defaults' | 'rotation'

const OVERLAY = fileURLToPath(new URL('./oracle/settings_overlay.py', import.meta.url))
const URLCONF = fileURLToPath(new URL('./oracle/jwt_urls.py', import.meta.url))
const WATCHDOG = fileURLToPath(new URL('./oracle/run-while-owner-lives.sh', import.meta.url))

/** Why the simplejwt oracle cannot run here, or `null` when it can. */
export function simplejwtOracleUnavailable(database: OracleDatabase): string | null {
  if (!oracleAvailable()) return 'Debian Django/DRF or shared/oracle-drf missing'
  const modules = database === 'postgres' ? 'rest_framework_simplejwt, jwt, psycopg2' : 'rest_framework_simplejwt, jwt'
  if (spawnSync('/usr/bin/python3', ['-c', `import ${modules}`], { stdio: 'ignore' }).status !== 0) {
    return `/usr/bin/python3 cannot import ${modules} (apt-get install python3-djangorestframework-simplejwt python3-psycopg2)`
  }
  if (database === 'postgres' && !postgresAvailable()) return 'DATABASE_URL is not a postgres:// URL'
  return null
}

/** A running simplejwt oracle. */
export interface RunningSimplejwtOracle {
  readonly baseUrl: string
  close(): Promise<void>
}

/** Starts a freshly seeded simplejwt oracle on `database` (PostgreSQL: a new database, dropped by `close()`). */
export async function startSimplejwtOracle(database: OracleDatabase, settings: OracleSettings = 'defaults'): Promise<RunningSimplejwtOracle> {
  const copy = mkdtempSync(join(tmpdir(), 'gatehouse-simplejwt-oracle-'))
  let pg: TestDatabase | undefined
  try {
    cpSync(dirname(ORACLE_RUN_SH), copy, { recursive: true })
    appendFileSync(join(copy, 'oracle_site', 'settings.py'), `\n${readFileSync(OVERLAY, 'utf8')}`)
    copyFileSync(URLCONF, join(copy, 'oracle_site', 'jwt_urls.py'))
    copyFileSync(WATCHDOG, join(copy, 'run-while-owner-lives.sh'))
    pg = database === 'postgres' ? await freshPostgres({ prefix: 'gh_jwt_oracle_' }) : undefined
    const oracle = await startOracle({
      runSh: join(copy, 'run-while-owner-lives.sh'),
      // Stopped within vitest's 10 s teardownTimeout even on a loaded machine: a killed oracle
      // leaves nothing behind, its SQLite file (TMPDIR) being inside the copy removed below.
      graceMs: 3_000,
      env: {
        TMPDIR: copy,
        ORACLE_OWNER_PID: String(process.pid),
        GATEHOUSE_JWT_SIGNING_KEY: JWT_ORACLE_KEY,
        ...(pg === undefined ? {} : { ORACLE_DATABASE_URL: pg.url }),
        ...(settings === 'rotation' ? { ORACLE_JWT_ROTATION: '1' } : {}),
      },
      timeoutMs: 120_000,
    })
    return {
      baseUrl: oracle.baseUrl,
      close: async () => {
        await oracle.close()
        await pg?.drop()
        rmSync(copy, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await pg?.drop()
    rmSync(copy, { recursive: true, force: true })
    throw error
  }
}
