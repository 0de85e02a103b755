import { sql } from 'kysely'
import type { ReferenceContext } from '../../examples/reference-api/context.js'

/**
 * Adds `count` articles to a seeded reference database in one statement (split evenly between
 * authors 1 and 2, scores (i*7) % 10, one minute apart from 2023-01-01), then ANALYZE, so
 * the planner's statistics and the keyset plans are those of a table of real size.
 */
export async function addBulkArticles(ref: ReferenceContext, count: number): Promise<void> {
  if (ref.database.dialect === 'sqlite') {
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
      insert into articles (title, author_id, score, created)
      select 'Bulk ' || i, 1 + (i % 2), (i * 7) % 10, strftime('%Y-%m-%dT%H:%M:%S.000Z', '2023-01-01', '+' || i || ' minutes') from n`.execute(ref.db)
  } else {
    await sql`insert into articles (title, author_id, score, created)
      select 'Bulk ' || i, 1 + (i % 2), (i * 7) % 10, timestamptz '2023-01-01' + i * interval '1 minute' from generate_series(1, ${count}) i`.execute(ref.db)
  }
  await sql`analyze`.execute(ref.db)
}
