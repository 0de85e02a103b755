import { describe, expect, it } from 'vitest'
import { NotAcceptable } from '../errors.js'
import { negotiateFormat, type Format } from './negotiation.js'

const pick = (accept: string | null, formats: readonly Format[]): Format | 406 => {
  try {
    return negotiateFormat(accept, formats)
  } catch (error) {
    if (error instanceof NotAcceptable) return 406
    throw error
  }
}

// Observed on the DRF 3.14 oracle: the token view (JSON renderer only) and an
// APIView with JSON + Browsable API renderers (our ['json', 'html']).
describe('negotiateFormat = DRF DefaultContentNegotiation', () => {
  it.each<[string | null, Format | 406, Format | 406]>([
    [null, 'json', 'json'],
    ['', 406, 406],
    [' ', 406, 406],
    ['*/*', 'json', 'json'],
    ['*/*;q=0.1', 'json', 'json'],
    ['*/*;q=0', 'json', 'json'],
    ['application/json', 'json', 'json'],
    ['APPLICATION/JSON', 'json', 'json'],
    ['application/json; indent=4', 'json', 'json'],
    ['application/json ; indent=4', 'json', 'json'],
    ['application/json;charset=utf-8', 'json', 'json'],
    ['application/json;q=0', 'json', 'json'],
    ['application/json;q=0, text/html', 'json', 'json'],
    ['text/html;q=0, application/json;q=0', 'json', 'json'],
    ['application/json;q=0, */*', 'json', 'json'],
    ['application/*', 'json', 'json'],
    ['*/json', 'json', 'json'],
    ['text/*', 406, 'html'],
    ['text/html', 406, 'html'],
    ['text/html, */*;q=0', 'json', 'html'],
    ['text/html;q=0.9, application/xml', 406, 'html'],
    ['application/json, text/html', 'json', 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json', 'html'],
    ['application/json+foo', 406, 406],
    ['application/xml', 406, 406],
    ['garbage', 406, 406],
    [',', 406, 406],
    ['*', 406, 406],
    ['application', 406, 406],
    ['application/', 406, 406],
    ['/json', 406, 406],
  ])('Accept %j → %s (JSON only), %s (JSON + HTML)', (accept, jsonOnly, both) => {
    expect(pick(accept, ['json'])).toBe(jsonOnly)
    expect(pick(accept, ['json', 'html'])).toBe(both)
  })

  it('ranges with parameters outrank plain ones, which outrank wildcards', () => {
    expect(pick('text/html, application/json;indent=2', ['html', 'json'])).toBe('json')
    expect(pick('text/*, application/json', ['html', 'json'])).toBe('json')
    expect(pick('*/*, text/html', ['json', 'html'])).toBe('html')
  })

  it('inside a group, the view\'s order decides, not the client\'s', () => {
    expect(pick('text/html, application/json', ['json', 'html'])).toBe('json')
    expect(pick('application/json, text/html', ['html', 'json'])).toBe('html')
  })
})
