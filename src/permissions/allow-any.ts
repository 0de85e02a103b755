import type { Permission } from './permission.js'

/** Allows every request (DRF's default permission). */
export class AllowAny implements Permission {
  hasPermission(): boolean {
    return true
  }

  openApiAllowsAnonymous(): boolean {
    return true
  }
}
