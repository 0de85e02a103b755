// The Web-standard core's build check: `drf-gatehouse` and `drf-gatehouse/hono` bundled as an edge runtime's
// bundler would (esbuild, browser platform, their dependencies included) must have no `node:` import
// and no `Buffer` global: a regression would stop them loading on Cloudflare Workers or Vercel Edge.
import { build, type Metafile } from 'esbuild'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { WEB_STANDARD_ENTRIES } from '../helpers/web-standard-core.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Imports of a Node built-in in bundled code: static, side-effect, dynamic, require. */
const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](?:node:[^"']+|(?:buffer|crypto|net|fs|path|util|http|stream|os|url|async_hooks)(?:\/[^"']*)?)["']/g
/** The `Buffer` global, read bare or off a global object (a property `.Buffer` of a module is fine). */
const BUFFER_GLOBAL = /(?<![\w$.])Buffer\b|\b(?:globalThis|global|self|window)\s*\.\s*Buffer\b|\[\s*["']Buffer["']\s*\]/g

async function bundle(entry: string): Promise<{ code: string; metafile: Metafile; errors: string[] }> {
  try {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
    return { code: result.outputFiles[0]!.text, metafile: result.metafile, errors: [] }
  } catch (error) {
    // A `node:` or bare built-in import does not resolve for the browser platform: esbuild says where.
    const errors = (error as { errors?: Array<{ text: string; location: { file: string } | null }> }).errors ?? []
    return { code: '', metafile: { inputs: {}, outputs: {} }, errors: errors.map((e) => `${e.location?.file ?? '?'}: ${e.text}`) }
  }
}

describe.each(WEB_STANDARD_ENTRIES)('%s bundled for the browser platform', (entry) => {
  it('builds, and holds no node: import and no Buffer global', async () => {
    const { code, metafile, errors } = await bundle(entry)
    expect(errors).toEqual([])
    expect(Object.keys(metafile.inputs).filter((input) => input.startsWith('node:'))).toEqual([])
    expect(code.match(NODE_IMPORT) ?? []).toEqual([])
    expect(code.match(BUFFER_GLOBAL) ?? []).toEqual([])
    // The bundle is the library's, not an empty shell: its own core is in it.
    expect(Object.keys(metafile.inputs)).toContain('src/core/encoding/native-buffer.ts')
  })
})

describe('the checks themselves', () => {
  it('see a node: import, a bare built-in and the Buffer global', () => {
    expect('import { createHash } from "node:crypto"'.match(NODE_IMPORT)).toHaveLength(1)
    expect('const x = await import("node:net")'.match(NODE_IMPORT)).toHaveLength(1)
    expect('var c = require("crypto")'.match(NODE_IMPORT)).toHaveLength(1)
    expect('Buffer.from(x)'.match(BUFFER_GLOBAL)).toHaveLength(1)
    expect('globalThis.Buffer'.match(BUFFER_GLOBAL)).toHaveLength(1)
    expect('new ArrayBuffer(1); x instanceof SharedArrayBuffer; mod?.Buffer'.match(BUFFER_GLOBAL)).toBeNull()
    expect('getBuiltinModule?.("node:crypto"); "needs node:crypto"'.match(NODE_IMPORT)).toBeNull()
  })

  it('a static node: import in the bundled code fails the build for the browser platform', async () => {
    const result = await build({ stdin: { contents: 'import { isIP } from "node:net"; console.log(isIP)' }, bundle: true, platform: 'browser', write: false, logLevel: 'silent' }).catch(
      (error: unknown) => error,
    )
    expect(result).toBeInstanceOf(Error)
  })
})
