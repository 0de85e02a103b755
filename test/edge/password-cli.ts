/**
 * Entry for Bun and Deno: `<runtime> password-cli.js '<ops as JSON>'` prints the outcomes as
 * JSON on one line. (`process.argv` is there on both.)
 */
import { runPasswordOps, type PasswordOp } from './password-ops.js'

const input = process.argv[2]
if (input === undefined) throw new Error('usage: password-cli <ops as JSON>')
console.log(JSON.stringify(await runPasswordOps(JSON.parse(input) as PasswordOp[])))
