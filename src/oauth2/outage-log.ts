/**
 * One line when the authorization server stops answering, one when it answers again: a
 * provider outage at 100 requests/s writes two lines, not a stack per 503.
 */
export class ProviderOutageLog {
  private down = false
  constructor(
    private readonly issuer: string,
    private readonly write: (line: string) => void,
  ) {}

  /** A request to the provider failed with `reason` (no secrets in it: see `fetchProviderJson`). */
  failed(reason: string): void {
    if (this.down) return
    this.down = true
    this.write(`gatehouse: OAuth 2.0 provider ${this.issuer} unavailable (${reason}); requests that need it answer 503 until it answers`)
  }

  answered(): void {
    if (!this.down) return
    this.down = false
    this.write(`gatehouse: OAuth 2.0 provider ${this.issuer} answers again`)
  }
}
