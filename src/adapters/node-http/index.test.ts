import { createServer, type IncomingMessage, type Server } from 'node:http'
import { connect, Socket, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonResponse } from '../../core/api-response.js'
import { createApi } from '../../core/api.js'
import { route } from '../../core/route.js'
import { PayloadTooLarge } from '../../core/errors.js'
import { requestUrl, router, type NodeHttpOptions } from './index.js'

/** Sends raw bytes (any Host, any request target) and returns the raw response text. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Written without ending our side: Deno's node:http takes a half-closed socket for an
    // aborted request. Every request here asks the server to close (Connection: close, HTTP/1.0).
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}

/** Status, lower-cased headers (repeats kept) and body of a raw HTTP/1.1 response. */
function parse(response: string): { status: number; headers: [string, string][]; body: string } {
  const [head = '', body = ''] = response.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(':')
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()]
  })
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}

const header = (headers: [string, string][], name: string): string[] => headers.filter(([n]) => n === name).map(([, v]) => v)

function fakeRequest(headers: Record<string, string | string[]>, url = '/p/?q=1', encrypted = false): IncomingMessage {
  const socket = new Socket()
  if (encrypted) Object.assign(socket, { encrypted: true })
  return { headers, url, socket } as unknown as IncomingMessage
}

describe('requestUrl', () => {
  it('builds the absolute URL from Host and the target, https on TLS sockets', () => {
    expect(requestUrl(fakeRequest({ host: 'api.example:8080' }))?.href).toBe('http://api.example:8080/p/?q=1')
    expect(requestUrl(fakeRequest({ host: 'api.example' }, '/p/', true))?.href).toBe('https://api.example/p/')
    expect(requestUrl(fakeRequest({ host: 'h' }, 'http://other/abs/?x'))?.href).toBe('http://h/abs/?x')
  })

  it('believes X-Forwarded-Proto only with trustProxy', () => {
    const req = fakeRequest({ host: 'h', 'x-forwarded-proto': 'HTTPS, http' })
    expect(requestUrl(req)?.protocol).toBe('http:')
    expect(requestUrl(req, { trustProxy: true })?.protocol).toBe('https:')
    expect(requestUrl(fakeRequest({ host: 'h', 'x-forwarded-proto': 'gopher' }), { trustProxy: true })?.protocol).toBe('http:')
  })

  it('keeps a target starting with // as a path (never a new host)', () => {
    expect(requestUrl(fakeRequest({ host: 'h' }, '//evil.example/x'))?.host).toBe('h')
  })

  it('rejects a Host that is missing or not a bare host[:port]', () => {
    for (const host of ['', 'a b', '[::1', 'h/x?', 'user@h', 'h:99999', 'h#f']) {
      expect(requestUrl(fakeRequest({ host })), host).toBeNull()
    }
    expect(requestUrl(fakeRequest({}))).toBeNull()
  })
})

describe('node:http adapter over a socket', () => {
  let server: Server
  let port: number
  const api = createApi({ authentication: [] })
  const echo = api.view({
    name: 'Echo',
    handlers: {
      GET: async (ctx) =>
        jsonResponse(200, { accept: ctx.request.headers.get('x-multi'), remote: ctx.request.remoteAddress, url: ctx.request.url.href }, [
          ['Set-Cookie', 'a=1; Path=/'],
          ['Set-Cookie', 'b=2; Path=/'],
        ]),
      POST: async (ctx) => jsonResponse(200, { data: await ctx.request.body() }),
    },
  })
  const options: NodeHttpOptions = { bodyLimit: 16 }
  let bodyOutcome: (outcome: string) => void = () => {}
  const outcome = new Promise<string>((resolve) => (bodyOutcome = resolve))
  const abortable = api.view({
    name: 'Abortable',
    handlers: {
      POST: async (ctx) => {
        await ctx.request.body().then(() => bodyOutcome('read'), (error: Error) => bodyOutcome(error.message))
        return jsonResponse(200, {})
      },
    },
  })

  beforeAll(async () => {
    server = createServer(router([route('/echo/', echo), route('/abortable/', abortable)], options))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
  })

  it('joins repeated headers with ", ", repeats Set-Cookie, reports the peer address', async () => {
    const res = parse(await raw(port, 'GET /echo/ HTTP/1.1\r\nHost: h:1\r\nX-Multi: a\r\nX-Multi: b\r\nConnection: close\r\n\r\n'))
    expect(res.status).toBe(200)
    // Node joins unknown repeated headers itself; the adapter keeps the result.
    expect(JSON.parse(res.body)).toEqual({ accept: 'a, b', remote: '127.0.0.1', url: 'http://h:1/echo/' })
    expect(header(res.headers, 'set-cookie')).toEqual(['a=1; Path=/', 'b=2; Path=/'])
    expect(header(res.headers, 'content-type')).toEqual(['application/json'])
  })

  it('reads the body when the view asks; a chunked body over the limit is a 413', async () => {
    const ok = parse(await raw(port, 'POST /echo/ HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 8\r\nConnection: close\r\n\r\n{"a": 1}'))
    expect(JSON.parse(ok.body)).toEqual({ data: { a: 1 } })
    const chunked = 'POST /echo/ HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n'
    const big = parse(await raw(port, `${chunked}a\r\n{"a": 1234\r\na\r\n5678901234\r\n1\r\n}\r\n0\r\n\r\n`))
    expect(big.status).toBe(413)
    expect(JSON.parse(big.body)).toEqual({ detail: 'Request body is too large.' })
    const declared = parse(await raw(port, 'POST /echo/ HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 17\r\nConnection: close\r\n\r\n{"a": "12345678"}'))
    expect(declared.status).toBe(413)
  })

  it('answers a malformed Host 400 and unknown paths (trailing slash significant) 404', async () => {
    const badHost = parse(await raw(port, 'GET /echo/ HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n'))
    expect([badHost.status, JSON.parse(badHost.body)]).toEqual([400, { detail: 'Invalid Host header.' }])
    const noHost = parse(await raw(port, 'GET /echo/ HTTP/1.0\r\n\r\n'))
    expect(noHost.status).toBe(400)
    for (const path of ['/echo', '/echo/x/', '/']) {
      const res = parse(await raw(port, `GET ${path} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`))
      expect([res.status, JSON.parse(res.body)], path).toEqual([404, { detail: 'Not found.' }])
    }
  })

  it('settles the body read when the client goes away mid-body', async () => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('POST /abortable/ HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a"')
      setTimeout(() => socket.destroy(), 50)
    })
    socket.on('error', () => {})
    expect(await outcome).toMatch(/aborted/) // Node's own 'aborted' error, or the adapter's close backstop
  })

  it('PayloadTooLarge renders as DRF-style 413', () => {
    const error = new PayloadTooLarge()
    expect([error.status, error.detail, error.code]).toEqual([413, 'Request body is too large.', 'payload_too_large'])
  })
})
