// The reference API's signing secret: GATEHOUSE_SECRET, or one random secret made on the
// first start and kept in the database, which every instance on that database then shares.
import { afterEach, describe, expect, it } from 'vitest'
import { openReferenceContext, referenceConfigFromEnv, type ReferenceContext } from '../../examples/reference-api/context.js'
import { freshPostgres, freshSqlite, postgresAvailable, type TestDatabase } from '../helpers/databases.js'

const backends: Array<[string, () => Promise<TestDatabase>]> = [['sqlite', async () => freshSqlite()]]
if (postgresAvailable()) backends.push(['postgres', () => freshPostgres()])

describe.each(backends)('reference secret on %s', (_name, create) => {
  const open: ReferenceContext[] = []
  let database: TestDatabase | null = null
  afterEach(async () => {
    for (const ref of open.splice(0)) await ref.close()
    await database?.drop()
  })

  it('two instances starting at once on one database make one random secret and share it', async () => {
    database = await create()
    const url = database.url
    const first = await openReferenceContext({ databaseUrl: url })
    open.push(first)
    const [a, b] = await Promise.all([openReferenceContext({ databaseUrl: url }), openReferenceContext({ databaseUrl: url })])
    open.push(a, b)
    expect(first.secrets).toHaveLength(1)
    expect(Buffer.from(first.secrets[0] ?? '', 'base64url')).toHaveLength(32)
    expect(a.secrets).toEqual(first.secrets)
    expect(b.secrets).toEqual(first.secrets)
  })

  it('GATEHOUSE_SECRET wins, comma-separated for rotation; a short one stops start-up', async () => {
    database = await create()
    const config = referenceConfigFromEnv({ GATEHOUSE_SECRET: 'new-secret-0123456789, old-secret-0123456789' })
    const ref = await openReferenceContext({ ...config, databaseUrl: database.url })
    open.push(ref)
    expect(ref.secrets).toEqual(['new-secret-0123456789', 'old-secret-0123456789'])
    expect(() => referenceConfigFromEnv({ GATEHOUSE_SECRET: 'short' })).toThrow(/GATEHOUSE_SECRET/)
  })
})
