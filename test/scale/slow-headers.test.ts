// Slowloris: a client trickling its headers is cut off once the headers timeout passes,
// while other clients keep being served.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'

describe('the reference API cuts off a client that trickles its headers', () => {
  let server: RunningReference
  beforeAll(async () => {
    server = await startReference(freshSqlite(), {}, { app: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } })
  })
  afterAll(async () => {
    await server?.close()
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
