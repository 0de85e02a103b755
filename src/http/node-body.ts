// Reading a request body from node:http (and every framework on it that left the stream unread).
import type { IncomingMessage } from 'node:http'
import { PayloadTooLarge } from '../core/errors.js'

/**
 * Reads the whole body of a node:http request (`IncomingMessage`: Express's, Fastify's raw,
 * Koa's `ctx.req`), for `createApiRequest`'s `readBody` in your adapter: the bytes, `null`
 * when empty. Fails with `PayloadTooLarge` (DRF's 413) past `limit` bytes, a declared
 * `Content-Length` refused before any byte is read; a client gone mid-body fails it rather
 * than leave the view waiting. Read it once per request (the stream is consumed).
 *
 * @example
 * createApiRequest({ …, readBody: () => readBody(req, 1024 * 1024) })
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new PayloadTooLarge())
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const cleanup = (): void => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        reject(new PayloadTooLarge())
        return
      }
      chunks.push(chunk)
    }
    const onEnd = (): void => {
      cleanup()
      resolve(size === 0 ? null : new Uint8Array(Buffer.concat(chunks, size)))
    }
    const onError = (error: Error): void => {
      cleanup()
      reject(error)
    }
    // A client gone mid-body: settle instead of leaving the view waiting forever.
    const onClose = (): void => {
      cleanup()
      if (!req.complete) reject(new Error('request aborted before its body ended'))
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}
