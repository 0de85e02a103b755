/**
 * The page statements alone at 1M rows on SQLite (issue 42): one statement per page against
 * the same page read in two steps (`KyselyPageSource`'s `key`: the ids first, then the rows),
 * without a server. Run each under callgrind twice, with N and 6N executions, and take the
 * difference over 5N: instructions per statement, the rows' JavaScript objects included. Plain
 * JavaScript: under tsx its loader thread made the same figure read 141 k in one run and 440 k in the next.
 *
 *   node bench/page-statements.mjs load                        # builds /tmp/gh-page-statements.db once (~1.5 min)
 *   for s in page3 page3Keys range rangeKeys score scoreKeys; do for n in 200 1200; do
 *     valgrind --tool=callgrind --callgrind-out-file=/dev/null node bench/page-statements.mjs $s $n 2>&1 | grep Collected
 *   done; done
 *
 * Tables as the reference API's (articles with `(created, id)`, `(score, id)` and
 * `(author_id, id)` indexes; users); 1,000,000 of each, one article a minute from 2024-01-01,
 * so the `created` range matches 100 rows and `score = 3` a tenth of them.
 */
import Database from 'better-sqlite3'
import { existsSync } from 'node:fs'
import process from 'node:process'
import console from 'node:console'

const PATH = '/tmp/gh-page-statements.db'
const ROWS = 1_000_000
const COLUMNS = 'select articles.id as id, articles.title as title, u.username as author, articles.score as score, articles.created as created from articles inner join gatehouse_users as u on u.id = articles.author_id'
const RANGE = ['2024-01-01T00:20:00.000Z', '2024-01-01T02:00:00.000Z']
const keys = (where, offset) =>
  `${COLUMNS} where articles.id in (select articles.id from articles ${where} order by articles.id limit 10 offset ${offset}) order by articles.id`
const STATEMENTS = {
  page3: { text: `${COLUMNS} order by articles.id limit 10 offset 20`, args: [] },
  page3Keys: { text: keys('', 20), args: [] },
  range: { text: `${COLUMNS} where articles.created >= ? and articles.created < ? order by articles.id limit 10 offset 10`, args: RANGE },
  rangeKeys: { text: keys('where articles.created >= ? and articles.created < ?', 10), args: RANGE },
  score: { text: `${COLUMNS} where articles.score = ? order by articles.id limit 10 offset 10`, args: [3] },
  scoreKeys: { text: keys('where articles.score = ?', 10), args: [3] },
}

function load() {
  if (existsSync(PATH)) return
  const db = new Database(PATH)
  db.exec(`create table gatehouse_users (id integer primary key, username text not null unique, password text, is_active integer, date_joined text);
    create table articles (id integer primary key autoincrement, title text not null, author_id integer not null, score integer not null, created text not null);
    create index articles_created_id on articles(created, id); create index articles_score_id on articles(score, id); create index articles_author_id on articles(author_id, id);`)
  const user = db.prepare("insert into gatehouse_users (id, username, password, is_active, date_joined) values (?, ?, '!', 1, '2024-01-01T00:00:00.000Z')")
  const article = db.prepare('insert into articles (id, title, author_id, score, created) values (?, ?, ?, ?, ?)')
  db.transaction(() => {
    for (let i = 1; i <= ROWS; i++) {
      user.run(i, `u${i}`)
      article.run(i, `Article ${i}`, 1 + ((i * 7919) % ROWS), i % 10, new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString())
    }
  })()
  db.exec('analyze')
  db.close()
}

const [name = 'load', times = '0'] = process.argv.slice(2)
if (name === 'load') load()
else {
  const statement = STATEMENTS[name]
  if (statement === undefined) throw new Error(`unknown statement ${name}: ${Object.keys(STATEMENTS).join(', ')}`)
  const db = new Database(PATH, { readonly: true })
  const prepared = db.prepare(statement.text)
  let rows = 0
  for (let i = 0; i < Number(times); i++) rows += prepared.all(...statement.args).length
  const plan = db.prepare(`explain query plan ${statement.text}`).all(...statement.args)
  console.log(name, times, rows, plan.map((r) => r.detail).join(' | '))
}
