// The browsable page's filter panel: what DRF's "Filters" button opens when a view has filter
// backends (django-filter's form, SearchFilter's box, OrderingFilter's links), as GET forms
// that work without script (the page's CSP allows none).
import type { ApiRequest } from '../../core/api-request.js'
import { escapeHtml } from '../../core/html/browsable-page.js'
import type { OrderingFilter } from '../ordering-filter.js'
import { queryParam, replaceQueryParam } from '../query-params.js'
import type { FilterSet } from './filter-set.js'
import type { SearchFilter } from './search-filter.js'

type FormField = ReturnType<FilterSet['formFields']>[number]

const attr = (value: string): string => `"${escapeHtml(value)}"`

/** A `<select>` of `options` (`[value, label]`), the one equal to `current` selected (else the first). */
function select(name: string, options: readonly (readonly [string, string])[], current: string | null): string {
  const chosen = options.some(([value]) => value === current) ? current : (options[0]?.[0] ?? null)
  const items = options.map(([value, label]) => `<option value=${attr(value)}${value === chosen ? ' selected' : ''}>${escapeHtml(label)}</option>`)
  return `<select name=${attr(name)} id=${attr(`id_${name}`)}>${items.join('')}</select>`
}

/**
 * One field as django-filter's form renders it (`as_p`): a number input for numbers, a
 * select for booleans (Unknown/Yes/No, django-filter's `BooleanWidget`) and choices
 * (`---------` first), text otherwise. The comma-separated lookups (`in`, `range`) get a text
 * input where Django renders a number input a browser would not let hold `1,2`.
 */
function fieldHtml(field: FormField, value: string | null): string {
  const id = `id_${field.name}`
  const csv = field.commaSeparated
  let control: string
  if (field.type === 'boolean') {
    // The values django-filter's `BooleanWidget` reads, shown as its select shows them.
    const lower = value?.toLowerCase() ?? null
    control = select(field.name, [['unknown', 'Unknown'], ['true', 'Yes'], ['false', 'No']], lower === '1' ? 'true' : lower === '0' ? 'false' : lower)
  }
  else if (field.type === 'choice' && !csv) control = select(field.name, [['', '---------'], ...field.choices.map((c) => [c, c] as const)], value)
  else {
    const numeric = (field.type === 'integer' || field.type === 'number') && !csv
    const shown = value === null || value === '' ? '' : ` value=${attr(value)}`
    control = `<input type="${numeric ? 'number' : 'text'}" name=${attr(field.name)}${shown}${numeric ? ' step="any"' : ''} id=${attr(id)}>`
  }
  const help = field.help === null ? '' : ` <span class="helptext">${escapeHtml(field.help)}</span>`
  return `<p><label for=${attr(id)}>${escapeHtml(field.label)}:</label> ${control}${help}</p>`
}

/**
 * The filter panel of a list's HTML page, or `''` when the list has none of the three: a
 * disclosure titled "Filters" holding django-filter's "Field filters" form, DRF's "Search"
 * box and its "Ordering" links, each filled in from the request. Each form is a GET form to
 * the page itself, as DRF's are: submitting one asks for the list with its fields only.
 */
export function filterFormHtml(req: ApiRequest, parts: { readonly filters?: FilterSet | undefined; readonly search?: SearchFilter | undefined; readonly ordering?: OrderingFilter | undefined }): string {
  const sections: string[] = []
  const { filters, search, ordering } = parts
  if (filters !== undefined) {
    const fields = filters.formFields().map((f) => fieldHtml(f, queryParam(req.url, f.name)))
    sections.push(`<h2>Field filters</h2>\n<form class="form" action="" method="get">\n${fields.join('\n')}\n<button type="submit">Submit</button>\n</form>`)
  }
  if (search !== undefined) {
    const term = queryParam(req.url, search.param) ?? ''
    sections.push(
      `<h2>Search</h2>\n<form class="form-inline" action="" method="get">\n<input type="text" name=${attr(search.param)} value=${attr(term)} aria-label="Search"> <button type="submit">Search</button>\n</form>`,
    )
  }
  if (ordering !== undefined) {
    // DRF marks the option of the ordering in effect (its first field).
    const first = (ordering.orderingFor(req) ?? ordering.defaultOrdering ?? [])[0]
    const current = first === undefined ? null : `${first.descending ? '-' : ''}${first.field}`
    const path = `${req.url.pathname}${req.url.search}`
    const links = ordering.fields.flatMap((field) =>
      [
        [field, `${field} - ascending`],
        [`-${field}`, `${field} - descending`],
      ].map(([key = '', label = '']) => `<a href=${attr(replaceQueryParam(path, ordering.param, key))} class="list-group-item${key === current ? ' active' : ''}">${escapeHtml(label)}</a>`),
    )
    sections.push(`<h2>Ordering</h2>\n<div class="list-group">\n${links.join('\n')}\n</div>`)
  }
  if (sections.length === 0) return ''
  return `<details class="filters">\n<summary>Filters</summary>\n${sections.join('\n<hr>\n')}\n</details>`
}
