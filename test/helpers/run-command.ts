import { spawn } from 'node:child_process'

/** What a finished command printed and how it exited (`code` is null when killed by a signal). */
export interface CommandResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Options of `runCommand`. */
export interface RunCommandOptions {
  readonly cwd: string
  /** The whole environment of the command (build it from `process.env` yourself). @default process.env */
  readonly env?: NodeJS.ProcessEnv
  /** Written to the command's stdin, which is then closed. @default '' */
  readonly input?: string
  /** Killed with SIGKILL past this. @default no limit */
  readonly timeoutMs?: number
}

/**
 * Runs a command without blocking the test worker (a synchronous command of a minute starves
 * vitest's worker RPC and fails the run with "Timeout calling onTaskUpdate").
 */
export function runCommand(command: string, args: readonly string[], options: RunCommandOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = options.timeoutMs === undefined ? null : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.once('error', (error) => {
      if (timer !== null) clearTimeout(timer)
      reject(error)
    })
    child.once('close', (code) => {
      if (timer !== null) clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? '')
  })
}
