import type { Handler } from '../core/view.js'
import type { ResolvedAdminOptions } from './admin-options.js'
import { h } from './admin-page.js'
import { page, staffPage, tag, userPath } from './staff-pages.js'

/** `GET /admin/`: users by username, searched with `?q=`, `?page=` of `pageSize`. */
export function userListHandler(options: ResolvedAdminOptions): Handler {
  return staffPage(options, async (ctx, staff) => {
    const params = ctx.request.url.searchParams
    const search = (params.get('q') ?? '').trim().slice(0, 150)
    const pageText = params.get('page') ?? '1'
    const pageNumber = /^[0-9]{1,6}$/.test(pageText) && Number(pageText) >= 1 ? Number(pageText) : 1
    const { users, count } = await options.users.list({ search, offset: (pageNumber - 1) * options.pageSize, limit: options.pageSize })
    const pages = Math.max(1, Math.ceil(count / options.pageSize))
    const link = (n: number): string => `${options.prefix}?${new URLSearchParams({ ...(search === '' ? {} : { q: search }), page: String(n) }).toString()}`
    const rows = users
      .map((u) => `<tr><td><a href="${h(userPath(options, u.id))}">${h(u.username)}</a></td><td>${tag(u.isActive, 'active', 'inactive')}</td><td>${u.isStaff ? tag(true, 'staff', '') : ''}</td></tr>`)
      .join('\n')
    const body = `<form class="search" method="get" action="${h(options.prefix)}"><input type="search" name="q" value="${h(search)}" placeholder="Search usernames" aria-label="Search usernames"><button type="submit" class="secondary">Search</button></form>
<p><a href="${h(options.prefix)}users/add/">Add a user</a> <span class="muted">· ${count} user${count === 1 ? '' : 's'}${search === '' ? '' : ` matching “${h(search)}”`}</span></p>
<table><thead><tr><th>Username</th><th>Status</th><th>Role</th></tr></thead>
<tbody>
${rows === '' ? '<tr><td colspan="3" class="muted">No users.</td></tr>' : rows}
</tbody></table>
<nav class="pages">${pageNumber > 1 ? `<a href="${h(link(pageNumber - 1))}">‹ Previous</a>` : ''}<span class="muted">Page ${Math.min(pageNumber, pages)} of ${pages}</span>${pageNumber < pages ? `<a href="${h(link(pageNumber + 1))}">Next ›</a>` : ''}</nav>`
    return page(staff, 'Users', body)
  })
}
