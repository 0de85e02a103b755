/**
 * The filtered routes in the reference API's `GET /api/openapi.json` (issue 42): every
 * parameter of `/api/articles/filtered/` and `/api/articles/filtered-cursor/` as served over a
 * real socket, each django-filter filter typed as drf-spectacular types it (integer, string,
 * date-time; `in` a comma-separated string), the search parameter as DRF writes it, and the
 * filters' 400 documented. Then against DRF 3.14 itself (test/oracle/drf/drf-schema.py, in the
 * oracle's settings): the same parameters in the same order as DRF's own schema generator
 * lists them (gatehouse adds the reference's `author`, which the oracle reads undocumented),
 * the paginators' and the search's word for word, and each filter described by the label and
 * help text django-filter's form gives it. DRF's generator types every filter as a plain
 * string (django-filter 23.1's `get_schema_operation_parameters`): gatehouse's types are
 * narrower on purpose, so that a typed client sends what the filter reads.
 */
import { spawnSync } from 'node:child_process'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { unavailable } from '../helpers/requirements.js'
import { ORACLE_RUN_SH, oracleAvailable } from '../oracle/oracle-server.js'

type Json = Record<string, unknown>
const FILTERED = '/api/articles/filtered/'
const FILTERED_CURSOR = '/api/articles/filtered-cursor/'
const SCRIPT = fileURLToPath(new URL('../oracle/drf/drf-schema.py', import.meta.url))

const query = (name: string, description: string, schema: Json): Json => ({ name, in: 'query', required: false, description, schema })
const csv = (label: string): string => `${label}. Multiple values may be separated by commas.`

/** The oracle's `ArticleFilterSet`, as the document describes it. */
const FILTER_PARAMETERS: readonly Json[] = [
  query('id', 'ID', { type: 'integer' }),
  query('id__in', csv('ID is in'), { type: 'string' }),
  query('score', 'Score', { type: 'integer' }),
  query('score__gte', 'Score is greater than or equal to', { type: 'integer' }),
  query('score__lte', 'Score is less than or equal to', { type: 'integer' }),
  query('score__gt', 'Score is greater than', { type: 'integer' }),
  query('score__lt', 'Score is less than', { type: 'integer' }),
  query('score__in', csv('Score is in'), { type: 'string' }),
  query('title', 'Title', { type: 'string' }),
  query('title__icontains', 'Title contains', { type: 'string' }),
  query('title__istartswith', 'Title starts with', { type: 'string' }),
  query('created__gte', 'Created is greater than or equal to', { type: 'string', format: 'date-time' }),
  query('created__lt', 'Created is less than', { type: 'string', format: 'date-time' }),
]
/** DRF's `SearchFilter.get_schema_operation_parameters`. */
const SEARCH = query('search', 'A search term.', { type: 'string' })
const AUTHOR = query('author', "Only this user's articles (a username); empty: no filter.", { type: 'string' })
const PAGE_SIZE = query('page_size', 'Number of results to return per page.', { type: 'integer', minimum: 1, maximum: 25 })

let database: TestDatabase
let server: RunningReference
let doc: Json
const operation = (path: string): Json => ((doc['paths'] as Record<string, Json>)[path] as Json)['get'] as Json
const parameters = (path: string): Json[] => operation(path)['parameters'] as Json[]

beforeAll(async () => {
  database = freshSqlite()
  server = await startReference(database)
  doc = (await (await fetch(`${server.baseUrl}/api/openapi.json`)).json()) as Json
}, 60_000)
afterAll(async () => {
  await server?.close()
  await database?.drop()
})

describe("the filtered routes' parameters in the reference API's document", () => {
  it('is valid, and lists every parameter of /api/articles/filtered/ with its type', async () => {
    expect((await new Validator().validate(doc)).valid).toBe(true)
    const [page, ...rest] = parameters(FILTERED)
    expect(page).toMatchObject({ name: 'page', in: 'query', description: 'A page number within the paginated result set.' })
    const ordering = rest[rest.length - 2]
    expect(ordering).toMatchObject({ name: 'ordering', style: 'form', explode: false, schema: { type: 'array', items: { type: 'string', enum: ['id', '-id', 'title', '-title', 'score', '-score', 'created', '-created'] } } })
    expect(rest).toEqual([PAGE_SIZE, ...FILTER_PARAMETERS, SEARCH, ordering, AUTHOR])
  })

  it('lists every parameter of /api/articles/filtered-cursor/ with its type', () => {
    expect(parameters(FILTERED_CURSOR)).toEqual([
      query('cursor', 'The pagination cursor value.', { type: 'string' }),
      PAGE_SIZE,
      ...FILTER_PARAMETERS,
      SEARCH,
      AUTHOR,
    ])
  })

  it("documents the filters' 400 (messages by parameter), and the routes answer it so", async () => {
    for (const path of [FILTERED, FILTERED_CURSOR]) {
      const bad = (operation(path)['responses'] as Json)['400'] as Json
      expect(bad).toMatchObject({ content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/ErrorDetail' }] } } } })
      const res = await fetch(`${server.baseUrl}${path}?score__in=1,x&created__lt=soon`)
      expect([res.status, await res.text()]).toEqual([400, '{"score__in":["Enter a number."],"created__lt":["Enter a valid date/time."]}'])
    }
    // A list without filters answers no such 400.
    expect((operation('/api/articles/ordered/')['responses'] as Json)['400']).toBeUndefined()
  })
})

const drfInstalled = oracleAvailable()

describe.skipIf(unavailable('Django, DRF and django-filter (/usr/bin/python3, the DRF oracle)', drfInstalled))("against DRF 3.14's own schema generator and django-filter's labels", () => {
  let drf: { paths: Record<string, Json[]>; labels: Record<string, [string, string | null]> }
  beforeAll(() => {
    const run = spawnSync('/usr/bin/python3', [SCRIPT, FILTERED, FILTERED_CURSOR], { cwd: dirname(ORACLE_RUN_SH), encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } })
    if (run.status !== 0) throw new Error(`drf-schema.py failed: ${run.stderr}`)
    drf = JSON.parse(run.stdout) as typeof drf
  })

  it('lists the same parameters in the same order (the paginator, the filter set, the search, the ordering), and the author filter', () => {
    for (const path of [FILTERED, FILTERED_CURSOR]) {
      const names = (drf.paths[path] ?? []).map((p) => p['name'])
      expect(names.length).toBeGreaterThan(10)
      expect(parameters(path).map((p) => p['name'])).toEqual([...names, 'author'])
      // Every one a query parameter, optional, as DRF's.
      for (const p of parameters(path)) expect([p['name'], p['in'], p['required']]).toEqual([p['name'], 'query', false])
    }
  })

  it("describes the paginator's, the search's and the ordering's parameters as DRF does", () => {
    for (const path of [FILTERED, FILTERED_CURSOR]) {
      const ours = new Map(parameters(path).map((p) => [p['name'], p]))
      for (const theirs of drf.paths[path] ?? []) {
        const name = String(theirs['name'])
        if (name in drf.labels) continue
        // The ordering's goes on to list its fields (DRF's says only its first sentence).
        const description = String(ours.get(name)?.['description'])
        expect({ name, description: name === 'ordering' ? description.slice(0, String(theirs['description']).length) : description }).toEqual({ name, description: theirs['description'] })
      }
      expect(ours.get('search')).toEqual((drf.paths[path] ?? []).find((p) => p['name'] === 'search'))
    }
  })

  it("describes each filter by django-filter's label and help text (what DRF's browsable API shows), typed where DRF says string", () => {
    const ours = new Map(parameters(FILTERED).map((p) => [p['name'], p]))
    expect(Object.keys(drf.labels)).toEqual(FILTER_PARAMETERS.map((p) => p['name']))
    for (const [name, [label, help]] of Object.entries(drf.labels)) {
      expect({ name, description: ours.get(name)?.['description'] }).toEqual({ name, description: help === null ? label : `${label}. ${help}` })
      // DRF's generator: a string for every filter; ours is a string, or narrower (an integer, a date-time).
      const theirs = (drf.paths[FILTERED] ?? []).find((p) => p['name'] === name)
      expect(theirs?.['schema']).toEqual({ type: 'string' })
    }
  })
})
