/**
 * Type-checks the documentation block modules in a process of its own, so that the compiler's
 * long synchronous run (a minute on a loaded 2-core machine) never blocks a vitest worker's event
 * loop: a worker blocked that long misses vitest's own RPC deadline and the run fails with
 * "Timeout calling onTaskUpdate" although every test passed.
 *
 * Input (argv[2]): a JSON file `{ options, files, entries }`. Output (stdout): a JSON array of
 * problems, each `{ fileName?, line?, character?, code?, message }` (positions 0-based, in the
 * generated module), for the test to map back to Markdown lines.
 */
import { readFileSync } from 'node:fs'
import ts from 'typescript'
import { forbiddenUses } from './api-names.js'

/** One problem found in a block module. */
export interface BlockProblem {
  readonly fileName?: string
  readonly line?: number
  readonly character?: number
  readonly code?: number
  readonly message: string
}

const input = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as { options: ts.CompilerOptions; files: string[]; entries: string[] }
const program = ts.createProgram({ rootNames: input.files, options: input.options })
const problems: BlockProblem[] = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ')
  if (diagnostic.file === undefined || diagnostic.start === undefined) return { code: diagnostic.code, message }
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
  return { fileName: diagnostic.file.fileName, line, character, code: diagnostic.code, message }
})
// Only the current API: no deprecated name, no internal module (the compiler already refuses names an entry does not export).
for (const problem of forbiddenUses(program, input.files, new Set(input.entries))) problems.push({ message: problem })
process.stdout.write(JSON.stringify(problems))
