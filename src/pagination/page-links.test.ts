import { describe, expect, it } from 'vitest'
import { displayedPageNumbers, pageLinks, PAGE_BREAK } from './page-links.js'

describe('displayedPageNumbers (DRF _get_displayed_page_numbers, §15.4)', () => {
  const B = null
  const table: [number, number, (number | null)[]][] = [
    [1, 6, [1, 2, 3, B, 6]],
    [2, 6, [1, 2, 3, B, 6]],
    [3, 6, [1, 2, 3, 4, 5, 6]],
    [4, 6, [1, 2, 3, 4, 5, 6]],
    [5, 6, [1, B, 4, 5, 6]],
    [6, 6, [1, B, 4, 5, 6]],
    [3, 7, [1, 2, 3, 4, B, 7]],
    [4, 7, [1, 2, 3, 4, 5, 6, 7]],
    [5, 7, [1, B, 4, 5, 6, 7]],
    [4, 8, [1, 2, 3, 4, 5, B, 8]],
    [5, 8, [1, B, 4, 5, 6, 7, 8]],
    [5, 9, [1, B, 4, 5, 6, B, 9]],
    [6, 9, [1, B, 5, 6, 7, 8, 9]],
    [9, 9, [1, B, 7, 8, 9]],
    [14, 16, [1, B, 13, 14, 15, 16]],
    [1, 1, [1]],
    [2, 5, [1, 2, 3, 4, 5]],
  ]
  for (const [current, final, shown] of table) {
    it(`(${current}, ${final}) → ${JSON.stringify(shown)}`, () => {
      expect(displayedPageNumbers(current, final)).toEqual(shown)
    })
  }
  it('pageLinks marks the active page and turns nulls into PAGE_BREAK', () => {
    const links = pageLinks([1, null, 5], 5, (n) => `u${n}`)
    expect(links).toEqual([{ url: 'u1', number: 1, isActive: false, isBreak: false }, PAGE_BREAK, { url: 'u5', number: 5, isActive: true, isBreak: false }])
  })
})
