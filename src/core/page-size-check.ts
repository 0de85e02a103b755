import { ConfigurationError } from './errors.js'
import type { Paginator } from './paginator.js'

/**
 * Refuses a paginator that would page nothing: it leaves its size to the `pageSize` setting
 * (its own `pageSize` is `undefined`) and that setting is `null`. DRF answers every row then,
 * with one start-up warning (system check W001) that is easy to miss; a list of a million rows
 * is a worse surprise than an error at start-up. `pageSize: null` on the paginator, or
 * `pagination: null`, still asks for the whole list on purpose. A paginator written from
 * scratch, with no `pageSize` property, is trusted to know its own size.
 */
export function checkPageSize(paginator: Paginator | null, pageSizeSetting: number | null, where: string): void {
  if (paginator === null || pageSizeSetting !== null) return
  if (!('pageSize' in paginator) || (paginator as { readonly pageSize?: unknown }).pageSize !== undefined) return
  const style = paginator.constructor.name
  throw new ConfigurationError(
    'ERR_NO_PAGE_SIZE',
    `${where}: ${style} has no page size, so it would answer every row: give it one (new ${style}({ pageSize: 20 })) ` +
      `or set the pageSize setting (DRF's PAGE_SIZE); pageSize: null on the paginator, or pagination: null, answers the whole list on purpose`,
  )
}
