/**
 * SIGTERM: the server stops accepting connections, finishes the request it is in the
 * middle of, closes its pools and exits 0. Runs the real `serve` command in a child
 * process on a fresh SQLite file (no external server needed).
 */
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startInstance, type Instance } from '../../scripts/multi-instance.js'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'

/** Resolves with everything the socket received once `done(received)` says so (or it closes). */
function readUntil(socket: Socket, done: (received: string) => boolean): Promise<string> {
  return new Promise((ok, fail) => {
    let received = ''
    const onData = (chunk: Buffer): void => {
      received += chunk.toString('utf8')
      if (done(received)) {
        cleanup()
        ok(received)
      }
    }
    const onEnd = (): void => {
      cleanup()
      ok(received)
    }
    const onError = (error: Error): void => {
      cleanup()
      fail(error)
    }
    const cleanup = (): void => {
      socket.off('data', onData)
      socket.off('end', onEnd)
      socket.off('error', onError)
    }
    socket.on('data', onData)
    socket.on('end', onEnd)
    socket.on('error', onError)
  })
}

/** Tries a new TCP connection: 'refused' once the listener is closed. */
function tryConnect(port: number): Promise<'accepted' | 'refused'> {
  return new Promise((ok) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      ok('accepted')
    })
    socket.once('error', () => ok('refused'))
  })
}

describe('graceful shutdown on SIGTERM', () => {
  let database: TestDatabase
  let instance: Instance

  beforeAll(async () => {
    database = freshSqlite()
    instance = await startInstance({ env: { DATABASE_URL: database.url, REDIS_URL: undefined } })
  }, 60_000)

  afterAll(async () => {
    await instance?.stop('SIGKILL')
    await database?.drop()
  })

  it('finishes the in-flight request with 200, refuses new connections, and exits 0', async () => {
    const body = JSON.stringify({ username: 'bob', password: 'bob-pass-2' })
    const socket = connect(instance.port, '127.0.0.1')
    await new Promise<void>((ok) => socket.once('connect', () => ok()))
    // `Expect: 100-continue` makes the server say when it has taken the request in:
    // after "100 Continue" the request is in flight, its body not yet sent.
    const continued = readUntil(socket, (r) => r.includes('\r\n\r\n'))
    socket.write(
      'POST /api/auth/token/ HTTP/1.1\r\n' +
        `Host: 127.0.0.1:${instance.port}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Expect: 100-continue\r\n\r\n',
    )
    expect(await continued).toMatch(/^HTTP\/1\.1 100 Continue/)

    instance.child.kill('SIGTERM')
    // The listener closes while our request is still open…
    const deadline = Date.now() + 10_000
    while ((await tryConnect(instance.port)) === 'accepted') {
      if (Date.now() > deadline) throw new Error('still accepting connections 10 s after SIGTERM')
      await new Promise((ok) => setTimeout(ok, 20))
    }
    expect(instance.child.exitCode).toBeNull()

    // …and the request in flight still gets its full answer.
    const response = readUntil(socket, (r) => /\r\n\r\n[\s\S]*\}$/.test(r))
    socket.write(body)
    const raw = await response
    socket.destroy()
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK/)
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ token: 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' })

    expect(await instance.exited).toBe(0)
    expect(instance.output()).toMatch(/SIGTERM received, finishing in-flight requests/)
  }, 30_000)
})
