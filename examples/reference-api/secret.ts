import type { Kysely } from 'kysely'
import type { ReferenceDatabase } from './database.js'

/** `count` random bytes in base64url without padding (Web Crypto: the Worker has no node:crypto). */
function randomBase64Url(count: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(count))
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/**
 * The secret kept in the database: made on the first start (32 random bytes), and read
 * back, so instances starting at once on one database agree on the row that won. The Node
 * entry and every isolate of the Worker entry read it so.
 */
export async function storedSecret(db: Kysely<ReferenceDatabase>): Promise<string> {
  await db
    .insertInto('reference_secrets')
    .values({ name: 'signing', value: randomBase64Url(32) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db.selectFrom('reference_secrets').select('value').where('name', '=', 'signing').executeTakeFirstOrThrow()
  return row.value
}
