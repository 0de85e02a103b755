import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseDatabaseUrl, redactUrl, withStatementCache } from './database.js'
import { openSqliteConnection } from './sqlite-connection.js'
import type { SqliteConnection } from './sqlite-connection-shape.js'

/** An in-memory database on the runtime's own driver (better-sqlite3 on Node 20, bun:sqlite, node:sqlite). */
async function memory(): Promise<SqliteConnection> {
  return (await openSqliteConnection(':memory:', { readOnly: false })).connection
}

describe('withStatementCache', () => {
  it('reuses a prepared statement for the same SQL and gives the same results', async () => {
    const raw = await memory()
    const db = withStatementCache(raw)
    db.prepare('create table t (x integer)').run([])
    db.prepare('insert into t values (?), (?)').run([1, 2])
    const first = db.prepare('select x from t where x > ? order by x')
    const again = db.prepare('select x from t where x > ? order by x')
    expect(again).toBe(first)
    expect(again.all([0])).toEqual([{ x: 1 }, { x: 2 }])
    expect(db.prepare('select x from t where x > ? order by x').all([1])).toEqual([{ x: 2 }])
    db.close()
  })

  it('never hands out a statement that is still iterating', async () => {
    const raw = await memory()
    const db = withStatementCache(raw)
    const sql = 'select value from json_each(?)'
    const iterator = db.prepare(sql).iterate(['[1,2,3]'])
    expect(iterator.next().value).toEqual({ value: 1 })
    const other = db.prepare(sql)
    expect(other.all(['[4]'])).toEqual([{ value: 4 }])
    expect([...iterator]).toEqual([{ value: 2 }, { value: 3 }])
    db.close()
  })

  it('keeps at most `size` statements, dropping the least recently used', async () => {
    const raw = await memory()
    const db = withStatementCache(raw, 2)
    const a = db.prepare('select 1')
    const b = db.prepare('select 2')
    expect(db.prepare('select 1')).toBe(a) // a is now the most recent
    db.prepare('select 3') // evicts b
    expect(db.prepare('select 1')).toBe(a)
    expect(db.prepare('select 2')).not.toBe(b)
    db.close()
  })
})

describe('parseDatabaseUrl', () => {
  it.each([
    [undefined, { dialect: 'sqlite', path: 'gatehouse.sqlite3' }],
    ['', { dialect: 'sqlite', path: 'gatehouse.sqlite3' }],
    ['sqlite:/tmp/x.db', { dialect: 'sqlite', path: '/tmp/x.db' }],
    ['file:data.db', { dialect: 'sqlite', path: 'data.db' }],
    ['postgres://u@h:5432/db', { dialect: 'postgres', url: 'postgres://u@h:5432/db' }],
    ['postgresql://u@h/db', { dialect: 'postgres', url: 'postgresql://u@h/db' }],
  ])('%s', (url, expected) => {
    expect(parseDatabaseUrl(url)).toEqual(expected)
  })

  it('refuses other schemes without echoing a password', () => {
    expect(() => parseDatabaseUrl('mysql://root:secret@h/db')).toThrow(/DATABASE_URL/)
    expect(() => parseDatabaseUrl('mysql://root:secret@h/db')).not.toThrow(/secret/)
  })
})

describe('redactUrl', () => {
  it('masks a password holding / (and the user) up to the last @', () => {
    expect(redactUrl('mysql://root:hunter2/x@db/app')).toBe('mysql://***@db/app')
    expect(redactUrl('postgres://u:p?q#r@db:5432/app')).toBe('postgres://***@db:5432/app')
    expect(redactUrl('postgres://db/app')).toBe('postgres://db/app')
    expect(redactUrl('sqlite:/tmp/x.sqlite3')).toBe('sqlite:/tmp/x.sqlite3')
  })

  it('never shows any part of any user and password (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('mysql', 'postgres', 'postgresql'), fc.string(), fc.string(), (scheme, user, password) => {
        expect(redactUrl(`${scheme}://${user}:${password}@db.example/app`)).toBe(`${scheme}://***@db.example/app`)
      }),
    )
  })

  it('masks a password given as a query parameter (password, sslpassword, any case, percent-encoded name)', () => {
    expect(redactUrl('postgres://app@db/app?password=hunter2')).toBe('postgres://***@db/app?password=***')
    expect(redactUrl('postgres://db/app?sslmode=require&SSLPassword=hunter2&application_name=x')).toBe('postgres://db/app?sslmode=require&SSLPassword=***&application_name=x')
    expect(redactUrl('postgresql://db/app?pass%77ord=hunter2')).toBe('postgresql://db/app?pass%77ord=***')
    // An `@` in the query masks up to it, and the parameter after it still.
    expect(redactUrl('postgres://db/app?user=a@b&password=hunter2')).toBe('postgres://***@b&password=***')
    expect(redactUrl('postgres://db/app?passwords=shown&user=x')).toBe('postgres://db/app?passwords=shown&user=x')
  })

  it('never shows a password given as a query parameter, among others (property)', () => {
    const name = fc.constantFrom('password', 'sslpassword').chain((n) => fc.array(fc.boolean(), { minLength: n.length, maxLength: n.length }).map((upper) => [...n].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')))
    const other = fc.tuple(fc.constantFrom('sslmode', 'user', 'application_name', 'host'), fc.string()).map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    fc.assert(
      fc.property(fc.constantFrom('postgres', 'postgresql'), fc.array(other, { maxLength: 3 }), name, fc.string({ minLength: 1 }), fc.array(other, { maxLength: 3 }), (scheme, before, key, password, after) => {
        const query = [...before, `${key}=${encodeURIComponent(password)}`, ...after].join('&')
        const expected = [...before, `${key}=***`, ...after].join('&')
        expect(redactUrl(`${scheme}://db.example/app?${query}`)).toBe(`${scheme}://db.example/app?${expected}`)
      }),
    )
  })
})
