import type { PageLink } from './paginator.js'

/** DRF's `PAGE_BREAK`: an ellipsis between page numbers. */
export const PAGE_BREAK: PageLink = Object.freeze({ url: null, number: null, isActive: false, isBreak: true })

/**
 * DRF's `_get_displayed_page_numbers(current, final)`: every page when there are
 * at most 5, otherwise the first, the last and the neighbours of the current
 * page, with `null` marking a break.
 */
export function displayedPageNumbers(current: number, final: number): (number | null)[] {
  if (final <= 5) return Array.from({ length: Math.max(final, 0) }, (_, i) => i + 1)
  const included = new Set([1, current - 1, current, current + 1, final])
  if (current <= 4) {
    included.add(2)
    included.add(3)
  }
  if (current >= final - 3) {
    included.add(final - 1)
    included.add(final - 2)
  }
  const shown: (number | null)[] = [...included].filter((n) => n > 0 && n <= final).sort((a, b) => a - b)
  if (current > 4) shown.splice(1, 0, null)
  if (current < final - 3) shown.splice(shown.length - 1, 0, null)
  return shown
}

/** DRF's `_get_page_links`: one `PageLink` per displayed number, breaks as `PAGE_BREAK`. */
export function pageLinks(
  numbers: readonly (number | null)[],
  current: number,
  urlOf: (page: number) => string,
): PageLink[] {
  return numbers.map((n) => (n === null ? PAGE_BREAK : { url: urlOf(n), number: n, isActive: n === current, isBreak: false }))
}
