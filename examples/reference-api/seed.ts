import type { Kysely } from 'kysely'
import { hashPassword } from 'drf-gatehouse'
import type { PasswordHasher, ScryptParams } from 'drf-gatehouse'
import type { DialectName } from 'drf-gatehouse/kysely'
import { syncSerial } from 'drf-gatehouse/kysely'
import { tokenRow } from 'drf-gatehouse/kysely'
import type { ReferenceDatabase } from './database.js'

/** The fixed seed users of reference-api.md. */
export const SEED_USERS = [
  { id: 1, username: 'alice', password: 'alice-pass-1', isActive: true, isStaff: false },
  { id: 2, username: 'bob', password: 'bob-pass-2', isActive: true, isStaff: false },
  { id: 3, username: 'carol', password: 'carol-pass-3', isActive: false, isStaff: false },
  // Staff and superuser, as Django's createsuperuser makes it: the admin pages let it change staff accounts.
  { id: 4, username: 'admin', password: 'admin-pass-4', isActive: true, isStaff: true, isSuperuser: true },
] as const

export const SEED_TOKENS = [
  { userId: 2, key: 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' },
  { userId: 3, key: 'ca7013ca7013ca7013ca7013ca7013ca7013ca70' },
] as const

export const SEED_ARTICLE_COUNT = 137
const EPOCH = Date.UTC(2024, 0, 1)

/** Article `i` of the seed, as stored. */
export function seedArticle(i: number): { id: number; title: string; author_id: number; score: number; created: string } {
  const minutes = i % 5 === 0 ? i - 1 : i
  return {
    id: i,
    title: `Article ${String(i).padStart(3, '0')}`,
    author_id: i % 2 === 1 ? 1 : 2,
    score: (i * 7) % 10,
    created: new Date(EPOCH + minutes * 60_000).toISOString(),
  }
}

/** Chunks of `size` (D1 binds at most 100 parameters per statement). */
function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, k) => items.slice(k * size, (k + 1) * size))
}

/**
 * Seeds an empty database (no users) with the reference data, in one transaction, hashing
 * the seed passwords with `passwords`: a hasher, or scrypt at those parameters (the library's
 * default when omitted). `transactions: false` for a database that runs none (D1): the rows
 * are then written one statement at a time (a seed cut short stays so: seed such a database
 * once, from one process).
 * Returns false when the database already had users (nothing is touched).
 */
export async function seedIfEmpty(
  db: Kysely<ReferenceDatabase>,
  dialect: DialectName,
  passwords?: PasswordHasher | ScryptParams,
  { transactions = true }: { readonly transactions?: boolean } = {},
): Promise<boolean> {
  const existing = await db.selectFrom('gatehouse_users').select('id').limit(1).executeTakeFirst()
  if (existing !== undefined) return false
  // One at a time: at the default cost each takes 128 MiB, and the first start should take no
  // more memory than the password budget allows a burst of logins.
  const hashes: string[] = []
  for (const u of SEED_USERS) hashes.push(await hashSeedPassword(u.password, passwords))
  const now = new Date().toISOString()
  const write = async (trx: Kysely<ReferenceDatabase>): Promise<void> => {
    const articles = Array.from({ length: SEED_ARTICLE_COUNT }, (_, k) => seedArticle(k + 1))
    await trx
      .insertInto('gatehouse_users')
      .values(
        SEED_USERS.map((u, index) => ({
          id: u.id,
          username: u.username,
          password: hashes[index] as string,
          is_active: u.isActive ? 1 : 0,
          is_staff: u.isStaff ? 1 : 0,
          is_superuser: 'isSuperuser' in u && u.isSuperuser ? 1 : 0,
          date_joined: now,
        })),
      )
      .execute()
    await trx
      .insertInto('gatehouse_tokens')
      .values(SEED_TOKENS.map((t) => tokenRow(t.key, t.userId, new Date(now))))
      .execute()
    for (const part of transactions ? [articles] : chunks(articles, 20)) await trx.insertInto('articles').values(part).execute()
    await syncSerial(trx, dialect, 'gatehouse_users')
    await syncSerial(trx, dialect, 'articles')
  }
  if (transactions) await db.transaction().execute(write)
  else await write(db)
  return true
}

/** A seed user's stored password: `passwords`' hash, or scrypt at those parameters. */
function hashSeedPassword(password: string, passwords: PasswordHasher | ScryptParams | undefined): Promise<string> {
  return passwords !== undefined && 'hash' in passwords ? passwords.hash(password) : hashPassword(password, passwords)
}
