import type { PageSource, SeekSource } from '../core/paginator.js'
import type { ControlTemplate, TemplateName } from '../core/paginator.js'

// The contracts live in the core (settings and views name them); re-exported beside the built-in styles.
export type {
  ControlTemplate,
  HtmlContext,
  HtmlTemplates,
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
  TemplateName,
} from '../core/paginator.js'

/** True when `source` supports keyset seeks (what cursor pagination needs). */
export function isSeekSource<T>(source: PageSource<T>): source is SeekSource<T> {
  const s = source as Partial<SeekSource<T>>
  return typeof s.seek === 'function' && typeof s.keyOf === 'function' && typeof s.acceptsKey === 'function'
}

/** Options every built-in style shares. */
export interface TemplateOption {
  /**
   * The HTML controls: a template function, the name of a registered template
   * (`'numbers'`, `'previousNext'`, replaceable per API or view with `htmlTemplates`),
   * or `null` to turn the controls off.
   */
  readonly template?: ControlTemplate | TemplateName | null
}
