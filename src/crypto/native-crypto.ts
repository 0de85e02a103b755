/**
 * Node's `node:crypto` where the runtime has one (Node ≥ 20.16, Bun, Deno, Workers with
 * `nodejs_compat`), found through `process.getBuiltinModule` rather than a static import so
 * the module still loads where there is none (edge runtimes, browsers); `undefined` there,
 * and the callers fall back to Web Crypto and `@noble/hashes`. Native stays the first choice
 * because hashing and HMAC run on every request and scrypt belongs on the thread pool.
 */
export const nativeCrypto: typeof import('node:crypto') | undefined = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as typeof import('node:crypto') | undefined
