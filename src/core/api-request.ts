/** Read-only access to request headers; Web `Headers` satisfies it as-is. Names are case-insensitive. */
export interface HeaderBag {
  get(name: string): string | null
}

/**
 * A parsed request body: usually an object (JSON object, or form fields as strings),
 * but any JSON value a client sent; `null` for an empty body. Views validate its shape.
 */
export type RequestData = unknown

/**
 * What one request's steps tell the steps after them, kept on the request (as DRF keeps state
 * on its `Request`) rather than in side tables keyed by it. Schemes see the request alone, so
 * this is where they read the view's settings and leave word for the response middleware.
 */
export interface RequestNotes {
  /** The `numProxies` of the view or `Policies` answering the request; `undefined` until its policies start. */
  numProxies: number | undefined
  /**
   * Cookies a scheme read that hold no live credential (a session cookie naming no session, or
   * one from before the password changed): `StaleSessionCookie` deletes them, as Django's
   * session middleware does.
   */
  staleCookies: string[] | undefined
}

/**
 * The only request shape gatehouse's policies ever see. Adapters build it from
 * their framework's request; nothing in the core imports a framework.
 */
export interface ApiRequest {
  /** Upper-case HTTP method. */
  readonly method: string
  /**
   * Absolute URL (scheme, host, path, query), used for next/previous links and CSRF origin
   * checks. A percent-encoded path is the one Django's views see, escaped again
   * (`/api%2Fwho%61mi/` is `/api/whoami/`); the query is as the client sent it.
   */
  readonly url: URL
  readonly headers: HeaderBag
  /** The peer address of the socket (REMOTE_ADDR), or `null` when unknown. */
  readonly remoteAddress: string | null
  /**
   * Path parameters of the matched route (`/books/:id/` → `{ id: '7' }`), percent-decoded.
   * Empty when the route has none.
   */
  readonly params: Readonly<Record<string, string>>
  /** The value of one cookie, or `null`. Malformed Cookie headers never throw. */
  cookie(name: string): string | null
  /**
   * The parsed body (JSON, urlencoded or multipart form). `null` when the request has no body.
   * Throws `ParseError` (400) or `UnsupportedMediaType` (415) with DRF's messages. Parsed once, lazily.
   */
  body(): Promise<RequestData>
  /**
   * The request's notes (see `RequestNotes`), made by `createApiRequest`. A request built by
   * hand without them still works; its schemes just cannot leave word for later steps.
   */
  readonly notes?: RequestNotes
}
