#!/usr/bin/env node
// Thin launcher for the library's command line (compiled into dist/ when the package is packed).
try {
  await import('../dist/cli/bin.js')
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error
  // The command line loads no optional peer until a command needs it (src/cli/sql-layer.ts); a
  // package missing here anyway is said in one line, never with a stack trace.
  const missing = /Cannot find package '([^']+)'/.exec(String(error.message))?.[1]
  if (missing !== undefined) {
    console.error(`gatehouse: the command line needs the ${missing} package, which is not installed: npm install ${missing}`)
    process.exit(1)
  }
  if (!String(error.message).includes('dist/cli/bin.js')) throw error
  // A clone of the repository has no dist/ until it is built: run the TypeScript source through
  // tsx (one of its devDependencies) instead, so `npx drf-gatehouse …` works right after `npm install`.
  let tsx
  try {
    tsx = await import('tsx/esm/api')
  } catch {
    console.error('gatehouse: the command line is compiled into dist/, which this checkout does not have yet.')
    console.error('Run `npm run build` once (an installed package ships it), then run the command again.')
    process.exit(1)
  }
  tsx.register()
  await import('../src/cli/bin.ts')
}
