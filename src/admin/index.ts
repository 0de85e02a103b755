// gatehouse/admin: staff-only administration pages (users, tokens, named tokens, sessions), mountable on any adapter.
export { adminRoutes } from './admin-routes.js'
export { type AdminOptions, type AdminUserStore } from './admin-options.js'
export { ADMIN_SECURITY_HEADERS } from './admin-page.js'
export { admin, type AdminFeatureOptions } from './admin-feature.js'
