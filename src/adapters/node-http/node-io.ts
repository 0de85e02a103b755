import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { HeaderBag } from '../../core/api-request.js'
import { PayloadTooLarge } from '../../core/errors.js'

/**
 * Node's parsed request headers as a `HeaderBag` (case-insensitive; repeated headers joined
 * with `, `). Shared by every adapter built on node:http (Express, Fastify).
 */
export function headerBag(headers: IncomingHttpHeaders): HeaderBag {
  return {
    get(name: string): string | null {
      const value = headers[name.toLowerCase()]
      if (value === undefined) return null
      return Array.isArray(value) ? value.join(', ') : value
    },
  }
}

/** Reads the whole body, failing with `PayloadTooLarge` past `limit` bytes; `null` when empty. */
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
