/** Walks the article list routes by following next/previous links (shared by conformance and oracle tests). */

export interface FetchedPage {
  readonly url: string
  readonly status: number
  readonly headers: Headers
  readonly body: unknown
  readonly ids: number[]
  readonly next: string | null
  readonly previous: string | null
}

/** Reads next/previous from a body (plain, nested) or from a `Link` header. */
function linksOf(body: unknown, headers: Headers): { next: string | null; previous: string | null } {
  if (Array.isArray(body)) {
    const link = headers.get('link') ?? ''
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? null
    const previous = /<([^>]+)>; rel="prev"/.exec(link)?.[1] ?? null
    return { next, previous }
  }
  const record = body as Record<string, unknown>
  const holder = (typeof record['links'] === 'object' && record['links'] !== null ? record['links'] : record) as Record<string, unknown>
  return { next: (holder['next'] as string | null) ?? null, previous: (holder['previous'] as string | null) ?? null }
}

function idsOf(body: unknown): number[] {
  const list = Array.isArray(body) ? body : ((body as Record<string, unknown>)['results'] as unknown[] | undefined) ?? []
  return list.map((item) => (item as { id: number }).id)
}

/** GETs one page as JSON. */
export async function fetchPage(url: string, init: RequestInit = {}): Promise<FetchedPage> {
  const response = await fetch(url, init)
  const text = await response.text()
  let body: unknown = null
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  const ok = response.status === 200 && typeof body === 'object' && body !== null
  const { next, previous } = ok ? linksOf(body, response.headers) : { next: null, previous: null }
  return { url, status: response.status, headers: response.headers, body, ids: ok ? idsOf(body) : [], next, previous }
}

/** Follows `next` links from `url` to the end (bounded, so a loop fails instead of hanging). */
export async function walkForward(url: string, limit = 200): Promise<FetchedPage[]> {
  const pages: FetchedPage[] = []
  let current: string | null = url
  while (current !== null) {
    if (pages.length >= limit) throw new Error(`more than ${limit} pages walking forward from ${url}`)
    const page = await fetchPage(current)
    if (page.status !== 200) throw new Error(`${current} answered ${page.status}: ${JSON.stringify(page.body)}`)
    pages.push(page)
    current = page.next
  }
  return pages
}

/** Follows `previous` links from `url` back to the start; pages in the order visited. */
export async function walkBackward(url: string, limit = 200): Promise<FetchedPage[]> {
  const pages: FetchedPage[] = []
  let current: string | null = url
  while (current !== null) {
    if (pages.length >= limit) throw new Error(`more than ${limit} pages walking back from ${url}`)
    const page = await fetchPage(current)
    if (page.status !== 200) throw new Error(`${current} answered ${page.status}: ${JSON.stringify(page.body)}`)
    pages.push(page)
    current = page.previous
  }
  return pages
}
