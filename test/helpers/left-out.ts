/**
 * Prints, once per vitest run, the test files a config leaves out on a runtime and why: the
 * test workers the run forks load the config again, with `GATEHOUSE_LEFT_OUT_PRINTED` set.
 */
export function printLeftOut(where: string, leftOut: Readonly<Record<string, string>>): void {
  if (process.env['GATEHOUSE_LEFT_OUT_PRINTED'] !== undefined) return
  for (const [file, reason] of Object.entries(leftOut)) console.log(`gatehouse: not run on ${where}: ${file} (${reason})`)
  process.env['GATEHOUSE_LEFT_OUT_PRINTED'] = '1'
}
