// What "the Web-standard core" is: the modules the root entry and gatehouse/hono reach, found by
// bundling them for the browser platform (as an edge runtime's bundler would). The bundle test
// checks that build; vitest.config.ts runs the unit tests beside those modules without Node's globals.
import { buildSync } from 'esbuild'
import { readdirSync } from 'node:fs'
import { dirname } from 'node:path'

/** The entries an edge runtime imports. */
export const WEB_STANDARD_ENTRIES = ['src/index.ts', 'src/adapters/hono/index.ts'] as const

/** The folders under src/ holding a module the Web-standard entries reach (imports of packages left out). */
export function webStandardSourceDirs(root: string): string[] {
  const { metafile } = buildSync({
    absWorkingDir: root,
    entryPoints: [...WEB_STANDARD_ENTRIES],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    packages: 'external',
    write: false,
    outdir: 'unused',
    metafile: true,
    logLevel: 'silent',
  })
  return [...new Set(Object.keys(metafile.inputs).filter((file) => file.startsWith('src/')).map(dirname))].sort()
}

/** The unit test files in those folders (not their subfolders: each reached subfolder is listed itself). */
export function webStandardUnitTests(root: string): string[] {
  return webStandardSourceDirs(root).flatMap((dir) =>
    readdirSync(`${root}/${dir}`)
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `${dir}/${file}`),
  )
}
