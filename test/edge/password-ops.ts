/**
 * What the cross-runtime password test asks of each runtime: hash with gatehouse's built-in
 * hasher (`scryptHasher`, what a user store is given), verify any stored hash (scrypt or
 * Django's PBKDF2) with it. Written against `drf-gatehouse` alone, so the same code is bundled
 * for Bun, Deno and workerd and imported on Node.
 */
import { scryptHasher, type ScryptParams } from 'drf-gatehouse'

/** One step: hash `password` at `params`, or verify it against `encoded`. */
export type PasswordOp =
  | { readonly op: 'hash'; readonly password: string; readonly params: ScryptParams }
  | { readonly op: 'verify'; readonly password: string; readonly encoded: string }

/** A hash's encoded form, or a verification's answer. */
export type PasswordOutcome = string | boolean

/** Runs the steps one after the other (scrypt is memory-heavy: never two at once). */
export async function runPasswordOps(ops: readonly PasswordOp[]): Promise<PasswordOutcome[]> {
  const outcomes: PasswordOutcome[] = []
  for (const op of ops) {
    outcomes.push(op.op === 'hash' ? await scryptHasher(op.params).hash(op.password) : await scryptHasher().verify(op.password, op.encoded))
  }
  return outcomes
}
