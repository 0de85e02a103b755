/**
 * DRF's `actions` block of an OPTIONS answer (`SimpleMetadata.determine_actions`): for the
 * methods that take a body (POST, PUT), the fields the view's serializer reads and writes,
 * shown only when the requester's permissions would let them send that method.
 */
import type { ApiRequest } from './api-request.js'
import { isApiError } from './errors.js'
import { checkObjectPermissions } from './object-permissions.js'
import type { RequestContext } from './pipeline.js'
import type { Settings } from './settings.js'

/** One serializer field as DRF's `SimpleMetadata.get_field_info` describes it. */
export interface ActionField {
  /** DRF's name of the field's type: `string`, `integer`, `boolean`, `datetime`, `choice`, `field`, … */
  readonly type: string
  readonly required: boolean
  readonly read_only: boolean
  readonly label?: string
  readonly help_text?: string
  readonly min_length?: number
  readonly max_length?: number
  readonly min_value?: number
  readonly max_value?: number
  readonly max_digits?: number
  readonly decimal_places?: number
  /** A list field's item. */
  readonly child?: ActionField
  /** A nested serializer's fields. */
  readonly children?: ActionFields
  /** A choice field's choices, writable ones only (DRF leaves them out of read-only fields). */
  readonly choices?: readonly { readonly value: string | number; readonly display_name: string }[]
}

/** The fields of one method, in the serializer's order. */
export type ActionFields = Readonly<Record<string, ActionField>>

/** What a view's OPTIONS answer shows under `actions`, per method that takes a body. */
export type ViewActions = Readonly<Partial<Record<'POST' | 'PUT', ActionFields>>>

/** DRF's methods of `determine_actions`, in the order this view lists them. */
const ACTION_METHODS = ['POST', 'PUT'] as const

/** The keys of `get_field_info`, in DRF's order (JSON keeps it). */
const FIELD_KEYS = ['type', 'required', 'read_only', 'label', 'help_text', 'min_length', 'max_length', 'min_value', 'max_value', 'max_digits', 'decimal_places'] as const

/** A field in DRF's key order, whatever order it was declared in. */
function fieldInfo(field: ActionField): Record<string, unknown> {
  const info: Record<string, unknown> = {}
  for (const key of FIELD_KEYS) if (field[key] !== undefined) info[key] = field[key]
  if (field.child !== undefined) info['child'] = fieldInfo(field.child)
  if (field.children !== undefined) info['children'] = fieldsInfo(field.children)
  if (field.choices !== undefined && !field.read_only) info['choices'] = field.choices.map((c) => ({ value: c.value, display_name: c.display_name }))
  return info
}

function fieldsInfo(fields: ActionFields): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(fields)) out[name] = fieldInfo(field)
  return out
}

/** The request as DRF's `clone_request` makes it: the same in all but its method. */
function withMethod(request: ApiRequest, method: string): ApiRequest {
  return {
    method,
    url: request.url,
    headers: request.headers,
    remoteAddress: request.remoteAddress,
    params: request.params,
    cookie: (name) => request.cookie(name),
    body: () => request.body(),
    ...(request.notes === undefined ? {} : { notes: request.notes }),
  }
}

/** Whether the request may PUT on the object `load` finds (DRF's `get_object()` in `determine_actions`). */
async function mayPutObject(ctx: RequestContext, load: (ctx: RequestContext) => Promise<unknown>): Promise<boolean> {
  try {
    await checkObjectPermissions(ctx, await load(ctx))
    return true
  } catch (error) {
    // DRF catches APIException and Http404 there: not found or refused, PUT is not shown.
    if (isApiError(error)) return false
    throw error
  }
}

/**
 * The `actions` block for a request whose policies passed (`state`): each declared method the
 * view has a handler for, when the view's permissions let the requester send it (checked on
 * the request with that method, as DRF clones it); `null` when none is shown. With
 * `putObject` (a detail view's look-up), PUT is shown only when it finds the object and the
 * object permissions pass for a PUT.
 */
export async function actionsFor(
  declared: ViewActions | undefined,
  hasHandler: (method: 'POST' | 'PUT') => boolean,
  state: RequestContext,
  settings: Settings,
  putObject?: (ctx: RequestContext) => Promise<unknown>,
): Promise<Record<string, unknown> | null> {
  if (declared === undefined) return null
  const actions: Record<string, unknown> = {}
  for (const method of ACTION_METHODS) {
    const fields = declared[method]
    if (fields === undefined || !hasHandler(method)) continue
    const clone: RequestContext = { ...state, request: withMethod(state.request, method) }
    let permitted = true
    for (const permission of settings.permissions) {
      if (!(await permission.hasPermission(clone))) {
        permitted = false
        break
      }
    }
    if (permitted && method === 'PUT' && putObject !== undefined) permitted = await mayPutObject(clone, putObject)
    if (permitted) actions[method] = fieldsInfo(fields)
  }
  return Object.keys(actions).length > 0 ? actions : null
}
