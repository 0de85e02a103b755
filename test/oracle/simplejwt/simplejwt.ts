import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** One answer of test/oracle/simplejwt/simplejwt.py: a minted pair, a checked token's claims, simplejwt's error message, or its crash. */
export interface SimplejwtAnswer {
  readonly refresh?: string
  readonly access?: string
  readonly payload?: Record<string, unknown>
  readonly error?: string
  readonly crash?: string
  /** A sliding token minted or refreshed. */
  readonly token?: string
  /** `InvalidToken`'s detail from `JWTAuthentication.get_validated_token`. */
  readonly invalid?: { readonly detail: string; readonly messages: readonly Record<string, string>[] }
}

/** A job for the script: mint a pair (`RefreshToken.for_user`) or a sliding token, check a token with a token class, refresh a sliding token, or validate one as `JWTAuthentication` does. */
export type SimplejwtJob =
  | { readonly op: 'mint'; readonly user_id: number | string }
  | { readonly op: 'mint_sliding'; readonly user_id: number | string }
  | { readonly op: 'check'; readonly token: string; readonly class: 'access' | 'refresh' | 'sliding' | 'untyped' }
  | { readonly op: 'refresh_sliding'; readonly token: string }
  | { readonly op: 'authenticate'; readonly token: string }

const SCRIPT = fileURLToPath(new URL('./simplejwt.py', import.meta.url))

/** Runs the jobs in one python process with Debian's simplejwt 5.2.2, `SECRET_KEY = key`, and `SIMPLE_JWT = settings`. */
export function simplejwt(key: string, jobs: readonly SimplejwtJob[], settings: Readonly<Record<string, unknown>> = {}): Promise<SimplejwtAnswer[]> {
  return new Promise((resolve, reject) => {
    const child = execFile('/usr/bin/python3', [SCRIPT], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`))
      else resolve(JSON.parse(stdout) as SimplejwtAnswer[])
    })
    child.stdin?.end(JSON.stringify({ key, jobs, settings }))
  })
}
