/** Where the command line reads and writes; the process's own streams by default. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
  readonly env: NodeJS.ProcessEnv
}

/** An expected failure: printed as `gatehouse: <message>` on stderr, exit code 1. */
export class CliError extends Error {}

/** An environment value, `undefined` when unset or empty. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}
