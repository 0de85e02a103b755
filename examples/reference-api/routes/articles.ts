import { sql, type SqlBool } from 'kysely'
import { route, type ApiView, type Handler, type Route } from 'drf-gatehouse'
import { emptyResponse, jsonResponse, type ApiResponse } from 'drf-gatehouse'
import { NotFound, ValidationError } from 'drf-gatehouse'
import { checkObjectPermissions, IsOwnerOrReadOnly, type Permission } from 'drf-gatehouse'
import type { ActionFields, RequestContext } from 'drf-gatehouse'
import { preparePageSource, type ColumnSpec, type OptionalQueryParameters } from 'drf-gatehouse/kysely'
import { formatResponse } from 'drf-gatehouse/http'
import { CursorPagination } from 'drf-gatehouse'
import { LimitOffsetPagination } from 'drf-gatehouse'
import { LinkHeaderPagination } from 'drf-gatehouse'
import { listHandler, paginatedList } from 'drf-gatehouse'
import { PageNumberPagination } from 'drf-gatehouse'
import { OrderingFilter } from 'drf-gatehouse'
import { FilterSet, SearchFilter } from 'drf-gatehouse'
import type { Page, PageNumberState, Paginator, SeekSource } from 'drf-gatehouse'
import { describeHandler, namedSchema, type JsonObject, type OpenApiPaginatedResponse } from 'drf-gatehouse'
import { parsePythonInt, queryParam } from 'drf-gatehouse/http'
import { IsAuthenticatedOrReadOnly } from 'drf-gatehouse'
import type { ReferenceRoutesContext } from '../context.js'

/** An article row as the list query selects it. */
export interface ArticleRow {
  id: number
  title: string
  author: string
  score: number
  /** `Date` on PostgreSQL, ISO-8601 text on SQLite. */
  created: Date | string
}

/**
 * DRF's `DateTimeField` output for an aware UTC datetime: `isoformat()` with `Z`,
 * microseconds only when non-zero (JavaScript keeps milliseconds, so `.123000Z`).
 */
export function formatCreated(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value)
  const iso = date.toISOString() // 2024-01-01T00:07:00.000Z
  const ms = date.getUTCMilliseconds()
  return ms === 0 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 23)}000Z`
}

/** `{"id", "title", "author", "score", "created"}`, in that order. */
export function serializeArticle(row: ArticleRow): Record<string, unknown> {
  return { id: row.id, title: row.title, author: row.author, score: row.score, created: formatCreated(row.created) }
}

/** One serialized article, for the OpenAPI document. */
export const ARTICLE_SCHEMA: JsonObject = namedSchema('Article', {
  type: 'object',
  required: ['id', 'title', 'author', 'score', 'created'],
  properties: {
    id: { type: 'integer' },
    title: { type: 'string', maxLength: 200 },
    author: { type: 'string' },
    score: { type: 'integer' },
    created: { type: 'string', format: 'date-time' },
  },
})

/** The body `POST /api/articles/` reads (the author is the requester, `created` is now). */
const NEW_ARTICLE_SCHEMA: JsonObject = {
  type: 'object',
  required: ['title', 'score'],
  properties: { title: { type: 'string', maxLength: 200 }, score: { type: 'integer', minimum: -2147483648, maximum: 2147483647 } },
}

/** DRF's `ArticleSerializer` (a ModelSerializer of `Article`), as OPTIONS describes it under `actions`. */
const ARTICLE_FIELDS: ActionFields = {
  id: { type: 'integer', required: false, read_only: true, label: 'ID' },
  title: { type: 'string', required: true, read_only: false, label: 'Title', max_length: 200 },
  author: { type: 'field', required: false, read_only: true, label: 'Author' },
  score: { type: 'integer', required: true, read_only: false, label: 'Score' },
  created: { type: 'datetime', required: false, read_only: true, label: 'Created' },
}

/** Every article list's filter; next/previous links keep it. */
const AUTHOR_PARAMETER: JsonObject = {
  name: 'author',
  in: 'query',
  required: false,
  description: "Only this user's articles (a username); empty: no filter.",
  schema: { type: 'string' },
}

export const ARTICLE_COLUMNS: Readonly<Record<string, ColumnSpec>> = {
  id: { ref: 'articles.id', kind: 'integer' },
  title: { ref: 'articles.title', kind: 'text' },
  author: { ref: 'u.username', kind: 'text' },
  score: { ref: 'articles.score', kind: 'integer' },
  created: { ref: 'articles.created', kind: 'timestamp', nearlyUnique: true },
}

/** `/api/articles/ordered/`: any listed field, unknown ones dropped, none left: by id. */
export const ORDERED = new OrderingFilter({ fields: ['id', 'title', 'score', 'created'], ordering: 'id' })
/** `/api/articles/cursor-ordered/`: the cursor's ordering among fields fixed at creation, falling back to `-created`. */
const CURSOR_ORDERED = new OrderingFilter({ fields: ['created', 'score', 'id'], ordering: '-created' })

/** `/api/articles/filtered/` and `filtered-cursor/` (exported for the SQL tests): the oracle's `ArticleFilterSet` (django-filter `Meta.fields`). */
export const ARTICLE_FILTERS = new FilterSet({
  id: { type: 'integer', lookups: ['exact', 'in'] },
  score: { type: 'integer', lookups: ['exact', 'gte', 'lte', 'gt', 'lt', 'in'] },
  title: { type: 'text', lookups: ['exact', 'icontains', 'istartswith'] },
  created: { type: 'datetime', lookups: ['gte', 'lt'] },
})
/** DRF's `SearchFilter` with `search_fields = ['title', '=author__username']`. */
export const ARTICLE_SEARCH = new SearchFilter({ fields: ['title', '=author'] })

/** `?author=` of a request: `undefined` when absent or empty (no filter). */
function authorOf(ctx: RequestContext): string | undefined {
  const author = queryParam(ctx.request.url, 'author')
  return author === null || author === '' ? undefined : author
}

/**
 * The articles of `?author=` (empty: every article), ordered by id for the numbered styles,
 * compiled once per shape (with and without the author filter); each request binds the author.
 */
export function articleSources(ref: ReferenceRoutesContext): (ctx: RequestContext) => SeekSource<ArticleRow> {
  const { db } = ref
  const prepared = preparePageSource({
    db,
    dialect: ref.database.dialect,
    columns: ARTICLE_COLUMNS,
    orderBy: ['id'],
    // A page's ids come from the count query first (an index answers), then only its rows are joined.
    key: 'id',
    query: (p: OptionalQueryParameters<{ author: string }>) => {
      const query = db
        .selectFrom('articles')
        .innerJoin('gatehouse_users as u', 'u.id', 'articles.author_id')
        .select(['articles.id as id', 'articles.title as title', 'u.username as author', 'articles.score as score', 'articles.created as created'])
      return p.author === undefined ? query : query.where('articles.author_id', 'in', db.selectFrom('gatehouse_users').select('id').where('username', '=', p.author))
    },
    // The count needs no join: author_id is NOT NULL and references a user, so the join keeps every row.
    countQuery: (p: OptionalQueryParameters<{ author: string }>) => {
      const query = db.selectFrom('articles').select('articles.id')
      return p.author === undefined ? query : query.where('articles.author_id', 'in', db.selectFrom('gatehouse_users').select('id').where('username', '=', p.author))
    },
  })
  // No username holds a NUL (PostgreSQL would reject the parameter): an unknown author, an empty list.
  const none = preparePageSource({
    db,
    dialect: ref.database.dialect,
    columns: ARTICLE_COLUMNS,
    orderBy: ['id'],
    query: () =>
      db
        .selectFrom('articles')
        .innerJoin('gatehouse_users as u', 'u.id', 'articles.author_id')
        .select(['articles.id as id', 'articles.title as title', 'u.username as author', 'articles.score as score', 'articles.created as created'])
        .where(sql<SqlBool>`1 = 0`),
  })
  return (ctx) => {
    const author = authorOf(ctx)
    return author !== undefined && author.includes('\0') ? none() : prepared({ author })
  }
}

/** The articles source of one request (see `articleSources`; tests use this one-off form). */
export function articleSource(ref: ReferenceRoutesContext, ctx: RequestContext): SeekSource<ArticleRow> {
  return articleSources(ref)(ctx)
}

/** The nested-links example of DRF's docs: `{"links": {"next", "previous"}, "count", "results"}`. */
export class NestedPagination extends PageNumberPagination {
  override paginatedResponse(page: Page<unknown, PageNumberState>, data: readonly unknown[]): ApiResponse {
    return jsonResponse(200, { links: { next: page.next, previous: page.previous }, count: page.count, results: data })
  }

  /** The document describes this body, not the inherited `{count, next, previous, results}`. */
  override openApiResponse(item: JsonObject): OpenApiPaginatedResponse {
    const link = { type: ['string', 'null'], format: 'uri' }
    return {
      schema: {
        type: 'object',
        required: ['links', 'count', 'results'],
        properties: {
          links: { type: 'object', required: ['next', 'previous'], properties: { next: link, previous: link } },
          count: { type: 'integer', example: 123 },
          results: { type: 'array', items: item },
        },
      },
    }
  }
}

const INT_MIN = -2147483648
const INT_MAX = 2147483647
const pyTypeName = (value: unknown): string =>
  Array.isArray(value) ? 'list' : typeof value === 'string' ? 'str' : typeof value === 'boolean' ? 'bool' : Number.isInteger(value) ? 'int' : 'float'

// With the u flag only *lone* surrogates match: a valid pair is one code point (as in Python).
const LONE_SURROGATE = /[\ud800-\udfff]/u

/**
 * DRF's `CharField(max_length=200)` (trimmed, not blank). Its validators run together, in
 * DRF's order, so one title may get several messages: the length, then NUL (which
 * PostgreSQL's text refuses: a driver error, i.e. a 500, if it got that far), then a lone
 * surrogate. Returns the value or the error messages.
 */
function validateTitle(data: Record<string, unknown>): { value?: string; errors?: string[] } {
  if (!Object.hasOwn(data, 'title')) return { errors: ['This field is required.'] }
  const raw = data['title']
  if (raw === null) return { errors: ['This field may not be null.'] }
  if (typeof raw !== 'string' && typeof raw !== 'number') return { errors: ['Not a valid string.'] }
  const value = String(raw).trim()
  if (value === '') return { errors: ['This field may not be blank.'] }
  const errors: string[] = []
  if ([...value].length > 200) errors.push('Ensure this field has no more than 200 characters.')
  if (value.includes('\u0000')) errors.push('Null characters are not allowed.')
  const surrogate = LONE_SURROGATE.exec(value)?.[0]
  if (surrogate !== undefined) errors.push(`Surrogate characters are not allowed: U+${surrogate.charCodeAt(0).toString(16).toUpperCase()}.`)
  return errors.length > 0 ? { errors } : { value }
}

/** DRF's `IntegerField` with the model field's range (PostgreSQL's `integer`). */
function validateScore(data: Record<string, unknown>): { value?: number; error?: string } {
  if (!Object.hasOwn(data, 'score')) return { error: 'This field is required.' }
  const raw = data['score']
  if (raw === null) return { error: 'This field may not be null.' }
  let value: number | null = null
  if (typeof raw === 'number') value = Number.isSafeInteger(raw) ? raw : null
  else if (typeof raw === 'string') {
    if (raw.length > 1000) return { error: 'String value too large.' }
    const parsed = parsePythonInt(raw.replace(/\.0*\s*$/, ''))
    value = parsed === null || parsed > BigInt(Number.MAX_SAFE_INTEGER) || parsed < BigInt(Number.MIN_SAFE_INTEGER) ? null : Number(parsed)
  }
  if (value === null) return { error: 'A valid integer is required.' }
  if (value > INT_MAX) return { error: `Ensure this value is less than or equal to ${INT_MAX}.` }
  if (value < INT_MIN) return { error: `Ensure this value is greater than or equal to ${INT_MIN}.` }
  return { value }
}

/** The request's data as DRF's serializer receives it: a dictionary, or DRF's 400. */
async function articleData(ctx: RequestContext): Promise<Record<string, unknown>> {
  const body = await ctx.request.body()
  if (body === null || body === undefined) {
    // An empty body parses to {} in DRF; a JSON `null` is "No data provided".
    const raw = ctx.request.headers.get('content-length')
    if (raw !== null && raw !== '0') throw new ValidationError({ non_field_errors: ['No data provided'] })
  } else if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyTypeName(body)}.`] })
  }
  return (body ?? {}) as Record<string, unknown>
}

/**
 * DRF's `ArticleSerializer` validation of `title` and `score`; `partial` (PATCH) checks only
 * the fields sent, as DRF's `partial=True`.
 */
function validateArticle(data: Record<string, unknown>, partial: boolean): { title?: string; score?: number } {
  const title = partial && !Object.hasOwn(data, 'title') ? {} : validateTitle(data)
  const score = partial && !Object.hasOwn(data, 'score') ? {} : validateScore(data)
  const errors: Record<string, string[]> = {}
  if (title.errors !== undefined) errors['title'] = title.errors
  if (score.error !== undefined) errors['score'] = [score.error]
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return { ...(title.value === undefined ? {} : { title: title.value }), ...(score.value === undefined ? {} : { score: score.value }) }
}

/** POST /api/articles/: DRF's `ListCreateAPIView.create` with author = requester, created = now. */
async function createArticle(ref: ReferenceRoutesContext, ctx: RequestContext): Promise<ApiResponse> {
  const { title, score } = validateArticle(await articleData(ctx), false)
  // Not partial: validateArticle returned both or threw.
  if (title === undefined || score === undefined) throw new Error('validateArticle: a full validation without both fields')
  const now = new Date()
  const created = ref.database.dialect === 'postgres' ? now : now.toISOString()
  const inserted = await ref.db
    .insertInto('articles')
    .values({ title, score, author_id: Number(ctx.user.id), created })
    .returning('id')
    .executeTakeFirstOrThrow()
  const article: ArticleRow = { id: inserted.id, title, author: ctx.user.username ?? '', score, created: now }
  return formatResponse(ctx, jsonResponse(201, serializeArticle(article)))
}

/** An article as the detail view loads it: the serialized row and its author's id. */
interface ArticleRecord extends ArticleRow {
  readonly authorId: number
}

/**
 * The detail view's look-up (DRF's `get_object`): the article of `:id`, or `404 Not found.`.
 * The route admits only digits (`{ id: 'int' }`); an id past the column's range finds nothing.
 */
async function loadArticle(ref: ReferenceRoutesContext, ctx: RequestContext): Promise<ArticleRecord> {
  const raw = ctx.params['id'] ?? ''
  const id = raw.length > 10 ? Number.NaN : Number(raw)
  if (!Number.isSafeInteger(id) || id > INT_MAX) throw new NotFound()
  const row = await ref.db
    .selectFrom('articles')
    .innerJoin('gatehouse_users as u', 'u.id', 'articles.author_id')
    .select(['articles.id as id', 'articles.title as title', 'u.username as author', 'articles.score as score', 'articles.created as created', 'articles.author_id as authorId'])
    .where('articles.id', '=', id)
    .executeTakeFirst()
  if (row === undefined) throw new NotFound()
  return row
}

/**
 * `/api/articles/<id>/`: DRF's `RetrieveUpdateDestroyAPIView`. Each handler loads the article
 * (404 when missing) and checks the object permissions before reading the body, as DRF's
 * `get_object()` does.
 */
function articleDetailView(ref: ReferenceRoutesContext, permissions: readonly Permission[]): ApiView {
  const load = async (ctx: RequestContext): Promise<ArticleRecord> => {
    const article = await loadArticle(ref, ctx)
    await checkObjectPermissions(ctx, article)
    return article
  }
  const update = (partial: boolean) => async (ctx: RequestContext): Promise<ApiResponse> => {
    const article = await load(ctx)
    const changes = validateArticle(await articleData(ctx), partial)
    if (Object.keys(changes).length > 0) await ref.db.updateTable('articles').set(changes).where('id', '=', article.id).execute()
    return jsonResponse(200, serializeArticle({ ...article, ...changes }))
  }
  const idParameter = [{ name: 'id', in: 'path', required: true, description: 'The article id.', schema: { type: 'integer' } }]
  return ref.api.view({
    name: 'Article Detail',
    description: 'GET anyone; PUT/PATCH/DELETE only the author (object permission); unknown id: 404.',
    permissions,
    formats: ['json', 'html'],
    actions: { PUT: ARTICLE_FIELDS },
    actionsObject: load,
    handlers: {
      GET: describeHandler(async (ctx) => jsonResponse(200, serializeArticle(await load(ctx))), { response: ARTICLE_SCHEMA, parameters: idParameter, errors: [404] }),
      PUT: describeHandler(update(false), { requestBody: NEW_ARTICLE_SCHEMA, response: ARTICLE_SCHEMA, parameters: idParameter, errors: [404] }),
      PATCH: describeHandler(update(true), { requestBody: { ...NEW_ARTICLE_SCHEMA, required: [] }, response: ARTICLE_SCHEMA, parameters: idParameter, errors: [404] }),
      DELETE: describeHandler(
        async (ctx) => {
          const article = await load(ctx)
          await ref.db.deleteFrom('articles').where('id', '=', article.id).execute()
          return emptyResponse(204)
        },
        { status: 204, parameters: idParameter, errors: [404] },
      ),
    },
  })
}

/** The Articles routes of reference-api.md (every pagination style, and the detail route). */
export function articleRoutes(ref: ReferenceRoutesContext): Route[] {
  const routes: Route[] = []
  const add = (path: string, view: ApiView): void => {
    routes.push(route(path, view))
  }
  const { api } = ref
  // The reference API stands in for a service moved off DRF: cursors DRF issued are honoured.
  const cursorSecret = { secret: ref.secrets, drfCursors: true }
  const permissions = [new IsAuthenticatedOrReadOnly()]
  // `fields`: each view's cursor ordering (and ordering filter) is checked against the source's columns when the view is declared.
  const source = articleSources(ref)
  /** The list handler: ordered by `ordering` when given, filtered and searched as the filtered routes are when `filtered`. */
  const listOf = ({ ordering, filtered = false }: { ordering?: OrderingFilter; filtered?: boolean } = {}): Handler =>
    describeHandler(
      listHandler<ArticleRow>({
        source,
        serialize: serializeArticle,
        fields: Object.keys(ARTICLE_COLUMNS),
        itemSchema: ARTICLE_SCHEMA,
        ...(filtered ? { filters: ARTICLE_FILTERS, search: ARTICLE_SEARCH } : {}),
        ...(ordering === undefined ? {} : { ordering }),
      }),
      { parameters: [AUTHOR_PARAMETER] },
    )
  const list = listOf()
  const common = { permissions, formats: ['json', 'html'] as const }

  // The global default style (context.ts sets page number); the fallback keeps the route paginated regardless.
  add('/api/articles/', api.view({ name: 'Article List', description: 'Global default pagination (page number, 10); POST creates.', ...common, actions: { POST: ARTICLE_FIELDS }, handlers: {
    GET: list,
    POST: describeHandler((ctx) => createArticle(ref, ctx), { status: 201, requestBody: NEW_ARTICLE_SCHEMA, response: ARTICLE_SCHEMA }),
  } }))
  const styled = (path: string, name: string, pagination: Paginator | null, handler = list, description?: string): void => {
    add(path, api.view({ name, ...(description === undefined ? {} : { description }), ...common, pagination, handlers: { GET: handler } }))
  }
  styled('/api/articles/pages/', 'Article Pages', new PageNumberPagination({ pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25, lastPageStrings: ['last', 'end'] }))
  styled('/api/articles/offset/', 'Article Offset', new LimitOffsetPagination({ defaultLimit: 10, maxLimit: 25 }))
  styled(
    '/api/articles/cursor/',
    'Article Cursor',
    new CursorPagination({ ordering: '-created', pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25, ...cursorSecret }),
  )
  styled('/api/articles/cursor-score/', 'Article Cursor Score', new CursorPagination({ ordering: ['-score', 'id'], pageSize: 7, ...cursorSecret }))
  styled('/api/articles/link-header/', 'Article Link Header', new LinkHeaderPagination({ pageSize: 10 }))
  styled('/api/articles/nested/', 'Article Nested', new NestedPagination({ pageSize: 10 }))
  styled('/api/articles/all/', 'Article All', null)
  styled(
    '/api/articles/ordered/',
    'Article Ordered',
    new PageNumberPagination({ pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25, lastPageStrings: ['last', 'end'] }),
    listOf({ ordering: ORDERED }),
    "`?ordering=` (OrderingFilter) over page-number pages; unknown fields are dropped,\nnone left means the view's `ordering`.",
  )
  styled(
    '/api/articles/cursor-ordered/',
    'Article Cursor Ordered',
    new CursorPagination({ ordering: '-created', pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25, ...cursorSecret }),
    listOf({ ordering: CURSOR_ORDERED }),
    "`?ordering=` (OrderingFilter) choosing the cursor ordering among restricted fields;\nthe view's `ordering` is the fallback, so `?ordering=bogus` is not DRF 3.14's 500.",
  )
  styled(
    '/api/articles/filtered/',
    'Article Filtered',
    // GATEHOUSE_COUNT applies here too: a broad filter's exact count grows with its matching rows (bench/million.ts).
    new PageNumberPagination({ pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25, lastPageStrings: ['last', 'end'], ...(ref.count === undefined ? {} : { count: ref.count }) }),
    listOf({ ordering: ORDERED, filtered: true }),
    "django-filter (`?score__gte=5`), DRF's SearchFilter (`?search=`) and OrderingFilter over page-number pages.",
  )
  styled(
    '/api/articles/filtered-cursor/',
    'Article Filtered Cursor',
    new CursorPagination({ ordering: '-created', pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25, ...cursorSecret }),
    listOf({ filtered: true }),
    'The same filters and search under cursor pagination (`-created`): filters kept in the cursor links.',
  )

  // A plain view calling the paginator itself; like DRF's APIView it shows no HTML controls.
  const manual = new PageNumberPagination({ pageSize: 5 })
  add('/api/articles/manual/',
    api.view({
      name: 'Article Manual',
      description: 'A plain APIView that calls the page-number paginator itself.',
      ...common,
      handlers: {
        GET: describeHandler((ctx) => paginatedList(ctx, manual, source(ctx), serializeArticle, { controls: false }), {
          list: { item: ARTICLE_SCHEMA, paginator: manual },
          parameters: [AUTHOR_PARAMETER],
        }),
      },
    }),
  )

  // DRF tutorial's IsOwnerOrReadOnly: anyone reads; only the author writes (checked on the loaded article).
  const isAuthor = new IsOwnerOrReadOnly<ArticleRecord>({ owner: (article) => article.authorId, message: 'Only the author may change this article.' })
  routes.push(route('/api/articles/:id/', articleDetailView(ref, [...permissions, isAuthor]), { params: { id: 'int' } }))
  return routes
}
