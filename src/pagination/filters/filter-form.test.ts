import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createApiRequest } from '../../core/request/request-factory.js'
import { OrderingFilter } from '../ordering-filter.js'
import { filterFormHtml } from './filter-form.js'
import { FilterSet } from './filter-set.js'
import { SearchFilter } from './search-filter.js'

const request = (query: string) =>
  createApiRequest({ method: 'GET', url: new URL(`http://testserver/x/${query}`), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })

const filters = new FilterSet({
  kind: { type: 'choice', choices: ['a', 'b'], lookups: ['exact', 'in', 'isnull'] },
  score: { type: 'integer', lookups: ['exact'] },
  flag: { type: 'boolean', lookups: ['exact'] },
  title: { type: 'text', lookups: ['icontains'], description: 'Part of the title.' },
})
const search = new SearchFilter({ fields: ['title'] })
const ordering = new OrderingFilter({ fields: ['score'], ordering: '-score' })

describe("filterFormHtml (the browsable page's filter panel)", () => {
  it("renders django-filter's fields as its form does, filled in from the request", () => {
    const html = filterFormHtml(request('?kind=b&flag=1&score=3&kind__in=a,b&title__icontains=x'), { filters })
    expect(html.split('\n').filter((line) => line.startsWith('<p>'))).toEqual([
      '<p><label for="id_kind">Kind:</label> <select name="kind" id="id_kind"><option value="">---------</option><option value="a">a</option><option value="b" selected>b</option></select></p>',
      // Comma-separated: a text input (a number input would refuse `1,2`), with django-filter's help text.
      '<p><label for="id_kind__in">Kind is in:</label> <input type="text" name="kind__in" value="a,b" id="id_kind__in"> <span class="helptext">Multiple values may be separated by commas.</span></p>',
      '<p><label for="id_kind__isnull">Kind is null:</label> <select name="kind__isnull" id="id_kind__isnull"><option value="unknown" selected>Unknown</option><option value="true">Yes</option><option value="false">No</option></select></p>',
      '<p><label for="id_score">Score:</label> <input type="number" name="score" value="3" step="any" id="id_score"></p>',
      // `1` is django-filter's BooleanWidget's true.
      '<p><label for="id_flag">Flag:</label> <select name="flag" id="id_flag"><option value="unknown">Unknown</option><option value="true" selected>Yes</option><option value="false">No</option></select></p>',
      '<p><label for="id_title__icontains">Title contains:</label> <input type="text" name="title__icontains" value="x" id="id_title__icontains"> <span class="helptext">Part of the title.</span></p>',
    ])
    expect(html).toMatch(/^<details class="filters">\n<summary>Filters<\/summary>\n<h2>Field filters<\/h2>\n<form class="form" action="" method="get">/)
  })

  it("renders DRF's search box and ordering links, the links keeping the query, the ordering in effect marked", () => {
    const html = filterFormHtml(request('?search=a%22b&page=2'), { search, ordering })
    expect(html).toContain('<input type="text" name="search" value="a&#34;b" aria-label="Search">')
    expect(html).toContain('<a href="/x/?ordering=score&#38;page=2&#38;search=a%22b" class="list-group-item">score - ascending</a>')
    expect(html).toContain('<a href="/x/?ordering=-score&#38;page=2&#38;search=a%22b" class="list-group-item active">score - descending</a>')
    expect(filterFormHtml(request('?ordering=score'), { ordering })).toContain('class="list-group-item active">score - ascending')
    expect(filterFormHtml(request(''), {})).toBe('')
  })

  it('escapes every value a client sends: the markup is the same whatever the values', () => {
    const shape = (html: string): string => html.replace(/value="[^"]*"/g, 'value=""').replace(/href="[^"]*"/g, 'href=""')
    const plain = shape(filterFormHtml(request('?kind=a&score=1&title__icontains=x&search=y&flag=true'), { filters, search, ordering }))
    // Non-empty (an empty value shows no `value`); any characters a URL can carry, markup's included.
    const value = fc.oneof(fc.string({ unit: 'grapheme', minLength: 1 }), fc.string({ unit: fc.constantFrom('<', '>', '"', "'", '&', '=', 'a', '#', ';'), minLength: 1 }))
    fc.assert(
      fc.property(value, value, (title, term) => {
        const query = `?kind=a&score=1&title__icontains=${encodeURIComponent(title)}&search=${encodeURIComponent(term)}&flag=true`
        expect(shape(filterFormHtml(request(query), { filters, search, ordering }))).toBe(plain)
      }),
    )
  })
})
