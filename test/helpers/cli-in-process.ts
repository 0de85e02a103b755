import { PassThrough } from 'node:stream'
import { main } from '../../src/cli/main.js'
import type { CommandResult } from './run-command.js'

/**
 * The command line in this process (`main` with captured streams, `input` on stdin, then its
 * end; `env` is its whole environment): no process start-up, for the tests that run it many
 * times. `runCli` (cli-process.ts) covers the real binary.
 */
export async function cliInProcess(args: readonly string[], env: Record<string, string> = {}, input = ''): Promise<CommandResult> {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const out: string[] = []
  const err: string[] = []
  stdout.on('data', (chunk: Buffer) => void out.push(chunk.toString()))
  stderr.on('data', (chunk: Buffer) => void err.push(chunk.toString()))
  const stdin = new PassThrough()
  stdin.end(input)
  const code = await main(args, { stdin, stdout, stderr, env })
  return { code, stdout: out.join(''), stderr: err.join('') }
}
