// Slowloris: a client trickling its headers is cut off once the headers timeout passes,
// while other clients keep being served.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FRAMEWORKS, startApp, type RunningApp } from '../../examples/reference-api/app.js'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import { freshSqlite } from '../helpers/databases.js'
import { TEST_SCRYPT } from '../helpers/reference-server.js'

describe.each(FRAMEWORKS)('the reference API on %s cuts off a client that trickles its headers', (framework) => {
  const database = freshSqlite()
  let ref: ReferenceContext
  let app: RunningApp
  const server = { baseUrl: '' }
  beforeAll(async () => {
    ref = await openReferenceContext({ scrypt: TEST_SCRYPT, databaseUrl: database.url })
    app = await startApp(framework, ref, { port: 0, host: '127.0.0.1' }, { headersTimeoutMs: 500, requestTimeoutMs: 1_000 })
    server.baseUrl = app.address
  })
  afterAll(async () => {
    await app?.close()
    await ref?.close()
    await database.drop()
  })

  it('answers 408 and closes the connection, and still serves others meanwhile', async () => {
    const { port } = new URL(server.baseUrl)
    const socket = connect(Number(port), '127.0.0.1')
    let received = ''
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())))
    const started = Date.now()
    socket.write('GET /api/whoami/ HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    // One header byte every 100 ms, for up to 5 s: never finishing the headers.
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write('X')
    }, 100)
    const other = await fetch(`${server.baseUrl}/api/whoami/`)
    expect(other.status).toBe(200)
    const closedAt = await Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5_000))])
    clearInterval(trickle)
    socket.destroy()
    expect(closedAt).not.toBe(-1)
    expect(closedAt - started).toBeLessThan(5_000)
    expect(received).toMatch(/^HTTP\/1\.1 408 /)
  })
})
