/**
 * What a wrong password costs, per kind of account, through `KyselyUserStore.authenticate`
 * on a throwaway SQLite file at the library's default scrypt cost (OWASP: N=2^17, r=8, p=1).
 * A login answer must not tell which usernames exist, so every row should be about the
 * same. Also times one hash at the default cost. Median (and min/max) of RUNS tries per
 * case, cases interleaved round-robin so load from other processes hits them alike.
 *
 *   npx tsx bench/password-timing.ts          (RUNS, default 20)
 *
 * Not a test: timings depend on the machine and its load.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto'
import { DEFAULT_SCRYPT, hashPassword } from '../src/crypto/passwords.js'
import { KyselyUserStore } from '../src/kysely/kysely-user-store.js'
import { openAuthDatabase } from '../test/helpers/auth-database.js'
import { freshSqlite } from '../test/helpers/databases.js'

const RUNS = Number(process.env['RUNS'] ?? 20)

/** Django's `pbkdf2_sha256$<iterations>$<salt>$<b64 hash>`, as `make_password` writes it. */
function djangoHash(password: string, iterations: number): string {
  const salt = randomBytes(12).toString('base64url')
  const hash = pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('base64')
  return `pbkdf2_sha256$${iterations}$${salt}$${hash}`
}

function stats(samples: number[]): { median: number; min: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)] as number, min: sorted[0] as number, max: sorted[sorted.length - 1] as number }
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

async function main(): Promise<void> {
  const auth = await openAuthDatabase(freshSqlite())
  try {
    const users = new KyselyUserStore({ db: auth.db })
    await users.create({ username: 'active', password: 'right-password' })
    await users.create({ username: 'inactive', password: 'right-password', isActive: false })
    await users.create({ username: 'unusable', password: null })
    const legacy: ReadonlyArray<readonly [string, string]> = [
      ['django-720k', djangoHash('right-password', 720_000)], // Django 5.0's default
      ['django-1m', djangoHash('right-password', 1_000_000)], // Django 6.0's default
      ['scrypt-2^15', await hashPassword('right-password', { N: 2 ** 15, r: 8, p: 1 })], // gatehouse's old default
    ]
    const now = new Date().toISOString()
    for (const [username, password] of legacy) {
      await auth.db.insertInto('gatehouse_users').values({ username, password, is_active: 1, is_staff: 0, date_joined: now }).execute()
    }
    const cases: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
      ['hash a password (default cost)', () => hashPassword('some password')],
      ['wrong password, active user (scrypt, default cost)', () => users.authenticate('active', 'wrong')],
      ['unknown user', () => users.authenticate('nobody-by-this-name', 'wrong')],
      ['wrong password, inactive user', () => users.authenticate('inactive', 'wrong')],
      ['right password, inactive user', () => users.authenticate('inactive', 'right-password')],
      ['unusable password ("!")', () => users.authenticate('unusable', '!')],
      ['wrong password, Django PBKDF2 720,000 iterations', () => users.authenticate('django-720k', 'wrong')],
      ['wrong password, Django PBKDF2 1,000,000 iterations', () => users.authenticate('django-1m', 'wrong')],
      ['wrong password, scrypt N=2^15 (old default)', () => users.authenticate('scrypt-2^15', 'wrong')],
    ]
    for (const [, fn] of cases) await fn() // warm-up
    const samples = cases.map(() => [] as number[])
    for (let run = 0; run < RUNS; run++) {
      for (const [i, [, fn]] of cases.entries()) samples[i]?.push(await time(fn))
    }
    console.log(`scrypt N=${DEFAULT_SCRYPT.N}, r=${DEFAULT_SCRYPT.r}, p=${DEFAULT_SCRYPT.p}; ${RUNS} runs per case; Node ${process.version}\n`)
    console.log('| Case | median ms | min | max |')
    console.log('|---|---:|---:|---:|')
    for (const [i, [name]] of cases.entries()) {
      const s = stats(samples[i] as number[])
      console.log(`| ${name} | ${s.median.toFixed(0)} | ${s.min.toFixed(0)} | ${s.max.toFixed(0)} |`)
    }
  } finally {
    await auth.close()
  }
}

await main()
