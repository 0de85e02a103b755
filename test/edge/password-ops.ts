/**
 * What the cross-runtime password tests ask of each runtime: hash with gatehouse's built-in
 * scrypt hasher (`scryptHasher`) or with the runtime's default one (`defaultPasswordHasher`:
 * scrypt where node:crypto has it, Django's PBKDF2 on an edge runtime), verify any stored hash
 * (scrypt or Django's PBKDF2) with either. Written against `drf-gatehouse` alone, so the same
 * code is bundled for Bun, Deno and workerd and imported on Node.
 */
import { defaultPasswordHasher, scryptHasher, type ScryptParams } from 'drf-gatehouse'

/** One step: hash `password` at `params` (or with the default hasher), or verify it against `encoded`. */
export type PasswordOp =
  | { readonly op: 'hash'; readonly password: string; readonly params: ScryptParams }
  | { readonly op: 'verify'; readonly password: string; readonly encoded: string }
  | { readonly op: 'hash-default'; readonly password: string }
  | { readonly op: 'verify-default'; readonly password: string; readonly encoded: string }

/** A hash's encoded form, or a verification's answer, or the message a verification rejected with. */
export type PasswordOutcome = string | boolean | { readonly error: string }

async function run(op: PasswordOp): Promise<PasswordOutcome> {
  switch (op.op) {
    case 'hash':
      return scryptHasher(op.params).hash(op.password)
    case 'verify':
      return scryptHasher().verify(op.password, op.encoded)
    case 'hash-default':
      return defaultPasswordHasher().hash(op.password)
    case 'verify-default':
      return defaultPasswordHasher().verify(op.password, op.encoded).catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }))
  }
}

/** Runs the steps one after the other (scrypt is memory-heavy: never two at once). */
export async function runPasswordOps(ops: readonly PasswordOp[]): Promise<PasswordOutcome[]> {
  const outcomes: PasswordOutcome[] = []
  for (const op of ops) outcomes.push(await run(op))
  return outcomes
}
