import { createInterface } from 'node:readline'
import { CliError, type CliIo } from './cli-io.js'

/** `--password-stdin`. */
export interface PasswordOptions {
  readonly passwordStdin?: boolean
}

/** Reads one line from a stream (the first line of stdin). */
function readLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString()
      const newline = text.indexOf('\n')
      if (newline !== -1) finish(text.slice(0, newline))
    }
    const finish = (line: string): void => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', reject)
      stream.pause()
      resolve(line.endsWith('\r') ? line.slice(0, -1) : line)
    }
    const onEnd = (): void => finish(text)
    stream.on('data', onData)
    stream.once('end', onEnd)
    stream.once('error', reject)
    stream.resume()
  })
}

/** Asks for a password on a terminal without echoing it. */
function promptHidden(io: CliIo, question: string): Promise<string> {
  return new Promise((resolve) => {
    const output = io.stderr as NodeJS.WritableStream & { write(text: string): boolean }
    const rl = createInterface({ input: io.stdin, output, terminal: true })
    // Mute the echo: readline writes typed characters through _writeToOutput.
    const muted = rl as unknown as { _writeToOutput: (text: string) => void }
    output.write(question)
    muted._writeToOutput = () => undefined
    rl.question('', (answer) => {
      rl.close()
      output.write('\n')
      resolve(answer)
    })
  })
}

/**
 * The new password: `GATEHOUSE_PASSWORD`, or the first line of stdin with
 * `--password-stdin`, or asked twice on a terminal. Never a command-line argument
 * (arguments show in process lists and shell history).
 */
export async function readPassword(options: PasswordOptions, io: CliIo): Promise<string> {
  let password: string
  const fromEnv = io.env['GATEHOUSE_PASSWORD']
  if (options.passwordStdin === true) {
    password = await readLine(io.stdin)
  } else if (fromEnv !== undefined) {
    password = fromEnv
  } else if (io.stdin.isTTY === true) {
    password = await promptHidden(io, 'Password: ')
    const again = await promptHidden(io, 'Password (again): ')
    if (again !== password) throw new CliError("the two passwords didn't match")
  } else {
    throw new CliError('no password: set GATEHOUSE_PASSWORD, pass --password-stdin, or run on a terminal to be asked')
  }
  if (password === '') throw new CliError('the password is empty')
  return password
}
