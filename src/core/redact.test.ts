import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { redactConfigValue } from './redact.js'

/** A password no host, path or key of the generated values can hold by chance: a marker, then anything. */
const password = fc.string({ minLength: 1, maxLength: 24 }).map((rest) => `S3cretPW${rest}`)
const host = fc.constantFrom('db', 'bad_host!', 'idp.example', '127.0.0.1', '[::1]', 'db.internal')
const port = fc.option(fc.integer({ min: 1, max: 65_535 }).map(String), { nil: undefined })
const hostPort = fc.tuple(host, port).map(([h, p]) => (p === undefined ? h : `${h}:${p}`))
const scheme = fc.constantFrom('redis', 'rediss', 'postgres', 'postgresql', 'mysql', 'https', 'http', 'amqp', 'mongodb+srv')

/** The password as it appears in the value and in each form a reader could recognise it. */
function shown(output: string, secret: string): boolean {
  return output.includes(secret) || output.includes(encodeURIComponent(secret)) || output.includes('S3cretPW')
}

describe('redactConfigValue', () => {
  it('masks the values of issue 45', () => {
    expect(redactConfigValue('redis://user:S3cretPW@bad_host!:7000')).toBe('redis://***@bad_host!:7000')
    expect(redactConfigValue('https://client:S3cretPW@idp.example')).toBe('https://***@idp.example')
    expect(redactConfigValue('host=db user=app password=hunter2 dbname=app')).toBe('host=db user=app password=*** dbname=app')
    expect(redactConfigValue('mysql://root:hunter2@db/app')).toBe('mysql://***@db/app')
    expect(redactConfigValue('postgres://db/app?sslmode=require&password=hunter2&application_name=x')).toBe('postgres://db/app?sslmode=require&password=***&application_name=x')
    expect(redactConfigValue("host=db password='hunter 2\\' x' dbname=app")).toBe('host=db password=*** dbname=app')
    expect(redactConfigValue('host=db PASSWORD = hunter2')).toBe('host=db PASSWORD = ***')
    expect(redactConfigValue('user:S3cretPW@db:7000,db:7001')).toBe('user:***@db:7000,db:7001')
  })

  it('leaves a value without credentials as it is', () => {
    for (const value of ['127.0.0.1:7000,127.0.0.1:7001', 'sqlite:/tmp/x.sqlite3', 'postgres://db/app?sslmode=require', '5/min', 'capped:1000', 'host=db dbname=app', 'https://idp.example/realms/x']) {
      expect(redactConfigValue(value)).toBe(value)
    }
  })

  it('never shows a password given as URL user info, in any scheme, alone or in a list (property)', () => {
    fc.assert(
      fc.property(scheme, fc.string(), password, hostPort, fc.constantFrom('', '/app', '/app?x=1'), fc.array(hostPort, { maxLength: 2 }), fc.boolean(), (s, user, secret, hp, rest, others, encoded) => {
        const info = `${encoded ? encodeURIComponent(user) : user}:${encoded ? encodeURIComponent(secret) : secret}`
        const url = `${s}://${info}@${hp}${rest}`
        const value = [...others, url, ...others].join(',')
        const output = redactConfigValue(value)
        expect(shown(output, secret)).toBe(false)
      }),
    )
  })

  it('never shows a password given as a query parameter or a libpq key=value pair (property)', () => {
    const key = fc.constantFrom('password', 'sslpassword', 'passwd', 'pwd', 'client_secret', 'api_key').chain((k) =>
      fc.array(fc.boolean(), { minLength: k.length, maxLength: k.length }).map((upper) => [...k].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
    )
    const other = fc.tuple(fc.constantFrom('sslmode', 'user', 'application_name', 'host', 'dbname'), fc.stringMatching(/^[a-z0-9._-]{1,12}$/)).map(([k, v]) => `${k}=${v}`)
    const query = fc.tuple(scheme, hostPort, fc.array(other, { maxLength: 3 }), key, password, fc.array(other, { maxLength: 3 })).map(
      ([s, hp, before, k, secret, after]) => ({ value: `${s}://${hp}/app?${[...before, `${k}=${encodeURIComponent(secret)}`, ...after].join('&')}`, secret }),
    )
    // libpq: an unquoted value ends at a blank; a quoted one holds anything, with \' and \\ escaped.
    const conninfo = fc.tuple(fc.array(other, { maxLength: 3 }), key, password, fc.boolean(), fc.array(other, { maxLength: 3 }), fc.constantFrom('=', ' = ', '= ')).map(
      ([before, k, secret, quoted, after, eq]) => {
        const plain = secret.replace(/[\s'\\]/g, '_')
        const written = quoted ? `'${secret.replace(/[\\']/g, (c) => `\\${c}`)}'` : plain
        return { value: [...before, `${k}${eq}${written}`, ...after].join(' '), secret: quoted ? secret : plain }
      },
    )
    fc.assert(
      fc.property(fc.oneof(query, conninfo), ({ value, secret }) => {
        expect(shown(redactConfigValue(value), secret)).toBe(false)
      }),
    )
  })

  it('redacts a long value of many pairs and blanks', () => {
    const value = `${'a=b&'.repeat(50_000)}password=x ${' '.repeat(100_000)}@`
    expect(redactConfigValue(value)).toBe('***@')
  })
})
