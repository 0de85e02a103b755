export type {
  HtmlContext,
  KeyValue,
  OrderingField,
  Page,
  PageLink,
  PageSource,
  PaginateOptions,
  Paginator,
  PositionSeekArgs,
  SeekArgs,
  SeekSource,
  TemplateOption,
  ControlTemplate,
  TemplateName,
  HtmlTemplates,
} from './paginator.js'
export { isSeekSource } from './paginator.js'
export { BasePagination, type BasePaginationOptions } from './base-pagination.js'
export { PageNumberPagination, type PageNumberPaginationOptions, type PageNumberState } from './page-number-pagination.js'
export { LimitOffsetPagination, type LimitOffsetPaginationOptions, type LimitOffsetState } from './limit-offset-pagination.js'
export { CursorPagination, parseOrdering, type CursorPaginationOptions, type CursorState } from './cursor-pagination.js'
export { LinkHeaderPagination } from './link-header-pagination.js'
export type { CountStrategy } from './count-strategy.js'
export { encodeCursor, decodeCursor, type Cursor } from './cursor-codec.js'
export type { DrfCursor } from './drf-cursor.js'
export { ArrayPageSource, type FieldReader } from './array-page-source.js'
export { numbersTemplate, previousNextTemplate, escapeHtml, resolveTemplate } from '../html/control-templates.js'
export { displayedPageNumbers, pageLinks, PAGE_BREAK } from './page-links.js'
export { replaceQueryParam, removeQueryParam, parsePositiveInt, parsePythonInt, queryParam } from './query-params.js'
export { listHandler, paginatedList, type ListHandlerOptions, type PaginatedListOptions } from './list-handler.js'
export { OrderingFilter, type OrderingFilterOptions } from './ordering-filter.js'
export { renderBrowsablePage, formatResponse, type BrowsablePageOptions } from '../html/browsable-page.js'
