/**
 * Node's `Buffer` class where the runtime has `node:buffer` (Node ≥ 20.16, Bun, Deno),
 * found through `process.getBuiltinModule` rather than the `Buffer` global or a static
 * import, so the module loads where there is none (edge runtimes, browsers). It is only a
 * shortcut: its native base64 and UTF-8 are faster than the portable code on the request
 * path (cursors), and give the same answers (encoding's tests run both).
 */
export const nativeBuffer: typeof import('node:buffer').Buffer | undefined = (
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:buffer') as
    | typeof import('node:buffer')
    | undefined
)?.Buffer
