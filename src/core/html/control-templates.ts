import { escapeHtml } from './browsable-page.js'
import type { ControlTemplate, HtmlTemplates, TemplateName } from '../paginator.js'

export type { ControlTemplate, HtmlTemplates, TemplateName } from '../paginator.js'
export { escapeHtml }

/** DRF's `numbers.html`: «, the page links with breaks, ». */
export const numbersTemplate: ControlTemplate = (ctx) => {
  const item = (url: string | null, label: string, aria: string): string =>
    url === null
      ? `<li class="disabled"><a href="#" aria-label="${aria}"><span aria-hidden="true">${label}</span></a></li>`
      : `<li><a href="${escapeHtml(url)}" aria-label="${aria}"><span aria-hidden="true">${label}</span></a></li>`
  const pages = (ctx.pageLinks ?? []).map((link) => {
    if (link.isBreak) return '<li class="disabled"><a href="#"><span aria-hidden="true">&hellip;</span></a></li>'
    const cls = link.isActive ? ' class="active"' : ''
    return `<li${cls}><a href="${escapeHtml(link.url ?? '#')}">${link.number ?? ''}</a></li>`
  })
  return [
    '<ul class="pagination">',
    item(ctx.previousUrl, '&laquo;', 'Previous'),
    ...pages,
    item(ctx.nextUrl, '&raquo;', 'Next'),
    '</ul>',
  ].join('\n')
}

/** DRF's `previous_and_next.html`: « Previous and Next » (with 3.18's rel and aria attributes). */
export const previousNextTemplate: ControlTemplate = (ctx) => {
  const prev =
    ctx.previousUrl === null
      ? '<li class="previous disabled"><a href="#" aria-disabled="true" tabindex="-1">&laquo; Previous</a></li>'
      : `<li class="previous"><a href="${escapeHtml(ctx.previousUrl)}" rel="prev" aria-label="Previous page">&laquo; Previous</a></li>`
  const next =
    ctx.nextUrl === null
      ? '<li class="next disabled"><a href="#" aria-disabled="true" tabindex="-1">Next &raquo;</a></li>'
      : `<li class="next"><a href="${escapeHtml(ctx.nextUrl)}" rel="next" aria-label="Next page">Next &raquo;</a></li>`
  return ['<ul class="pager">', prev, next, '</ul>'].join('\n')
}

const BUILT_IN: Readonly<Record<TemplateName, ControlTemplate>> = Object.freeze({
  numbers: numbersTemplate,
  previousNext: previousNextTemplate,
})

/**
 * The template a paginator renders with: its own function, or the named built-in as the API
 * (or view) replaced it in `htmlTemplates`, else the built-in itself; `null` for no controls.
 */
export function resolveTemplate(template: ControlTemplate | TemplateName | null, templates: HtmlTemplates = {}): ControlTemplate | null {
  if (template === null) return null
  if (typeof template === 'function') return template
  return templates[template] ?? BUILT_IN[template]
}
