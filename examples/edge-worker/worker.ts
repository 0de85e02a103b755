import { Hono, type Context } from 'hono'
import {
  AllowAny, ArrayPageSource, createApi, IsAdminUser, IsAuthenticated, jsonResponse, MemoryThrottleStore, NotFound,
  PageNumberPagination, paginatedList, route, TokenAuthentication, UserRateThrottle, validateCharFields,
  type StoredUser, type TokenRecord, type UserId,
} from 'drf-gatehouse'
import { errorHandler, mountRoutes, policies, requestContext, sendApiResponse, type GatehouseEnv } from 'drf-gatehouse/hono'

// Stand-ins for your stores: a token store needs `findByKey`, a user store `findById`
// (a store over your edge database implements the same methods).
const people = new Map<UserId, StoredUser>([
  [1, { id: 1, username: 'ada', isActive: true, isStaff: true, isAuthenticated: true }],
  [2, { id: 2, username: 'bob', isActive: true, isStaff: false, isAuthenticated: true }],
])
const tokens = new Map<string, TokenRecord>([
  ['ada-token', { key: 'ada-token', userId: 1, created: new Date(0) }],
  ['bob-token', { key: 'bob-token', userId: 2, created: new Date(0) }],
])

const api = createApi({
  authentication: [
    new TokenAuthentication({
      tokens: { findByKey: async (key) => tokens.get(key) ?? null },
      users: { findById: async (id) => people.get(id) ?? null },
    }),
  ],
  permissions: [new IsAuthenticated()],
})

const books = [{ id: 1, title: 'Dune' }, { id: 2, title: 'Emma' }, { id: 3, title: 'Kim' }]
const pages = new PageNumberPagination({ pageSize: 2 })
// Users by id, anonymous clients by address. Per isolate: an edge runtime runs many, so a
// shared budget needs a shared store.
const searches = new UserRateThrottle({ store: new MemoryThrottleStore(), rate: '3/min', scope: 'search' })
// Cloudflare's edge gives the client's address in CF-Connecting-IP (the Worker sees no socket).
const cloudflare = { getConnInfo: (c: Context) => ({ remote: { address: c.req.header('cf-connecting-ip') } }) }

const app = new Hono<GatehouseEnv>({ strict: true })
app.get('/books/', policies(api), async (c) =>
  sendApiResponse(c, await paginatedList(requestContext(c), pages, new ArrayPageSource(books), (book) => book)),
)
app.post('/books/', policies(api, { permissions: [new IsAdminUser()] }), async (c) => {
  const { request } = requestContext(c)
  const { title } = validateCharFields(await request.body(), { title: {} }, request)
  // Your database would store it; this isolate's memory would not outlive the request.
  return c.json({ id: books.length + 1, title }, 201)
})
app.get('/books/:id/', policies(api), (c) => {
  const book = books.find((b) => String(b.id) === c.req.param('id'))
  if (book === undefined) throw new NotFound()
  return c.json(book)
})
app.get('/search/', policies(api, { permissions: [new AllowAny()], throttles: [searches], ...cloudflare }), (c) =>
  c.json(books.filter((b) => b.title.toLowerCase().includes((c.req.query('q') ?? '').toLowerCase()))),
)
// A DRF-style view beside the routes.
mountRoutes(app, [
  route('/me/', api.view({ name: 'Me', handlers: { GET: async (ctx) => jsonResponse(200, { username: ctx.user.username }) } })),
])
app.onError(errorHandler(api))

export default app
