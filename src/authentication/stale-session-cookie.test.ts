import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeSessionStore, FakeTokenStore, FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import { createApi } from '../core/api.js'
import { deletedCookie } from '../core/deleted-cookie.js'
import { SessionAuthentication } from './session-authentication.js'
import { StaleSessionCookie } from './stale-session-cookie.js'
import { TokenAuthentication } from './token-authentication.js'

const users = new FakeUserStore()
const sessions = new FakeSessionStore()
const LIVE = 'livesession1234567890'
sessions.sessions.set(LIVE, { userId: 1, data: {}, expiresAt: new Date(Date.now() + 3_600_000) })
sessions.sessions.set('expiredsession123', { userId: 1, data: {}, expiresAt: new Date(Date.now() - 1000) })
const session = new SessionAuthentication({ sessions, users })
const token = new TokenAuthentication({ users, tokens: new FakeTokenStore([['b0b', 2]]) })
const DJANGO_DELETION = 'sessionid=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; SameSite=Lax'

async function answer(schemes: 'session' | 'token', cookie: string | null, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const api = createApi({
    authentication: schemes === 'session' ? [token, session] : [token],
    responseMiddleware: [new StaleSessionCookie({ session })],
    logError: () => undefined,
  })
  const view = api.view({ name: 'V', handlers: { GET: async (ctx) => jsonResponse(200, { user: ctx.user.username }) } })
  return view.handle(buildRequest({ headers: { ...headers, ...(cookie === null ? {} : { Cookie: cookie }) } }))
}
const header = (response: ApiResponse, name: string): string[] =>
  response.headers.filter(([k]) => k.toLowerCase() === name.toLowerCase()).map(([, v]) => v)

describe('StaleSessionCookie (Django SessionMiddleware.process_response)', () => {
  it('deletes a cookie that cannot be a session key (under 8 characters) on any view, with Vary: Cookie', async () => {
    for (const cookie of ['sessionid=garbage', 'sessionid=', 'sessionid="quoted"', 'a=1; sessionid=x']) {
      for (const schemes of ['session', 'token'] as const) {
        const response = await answer(schemes, cookie)
        expect([cookie, header(response, 'Set-Cookie')]).toEqual([cookie, [DJANGO_DELETION]])
        expect(header(response, 'Vary')).toEqual(['Accept, Cookie'])
      }
    }
  })

  it('deletes a well-formed key only when the session scheme looked it up and found no live session', async () => {
    for (const cookie of ['sessionid=garbage12345', 'sessionid=expiredsession123']) {
      expect(header(await answer('session', cookie), 'Set-Cookie')).toEqual([DJANGO_DELETION])
      // Not read (no session scheme, or a token answered first): Django leaves it.
      expect(header(await answer('token', cookie), 'Set-Cookie')).toEqual([])
      expect(header(await answer('session', cookie, { Authorization: 'Token b0b' }), 'Set-Cookie')).toEqual([])
    }
    const live = await answer('session', `sessionid=${LIVE}`)
    expect([live.body, header(live, 'Set-Cookie')]).toEqual([{ user: 'alice' }, []])
    expect(header(await answer('session', null), 'Set-Cookie')).toEqual([])
  })

  it('leaves an answer that sets the session cookie itself, and writes Django\'s bytes for the options', () => {
    const stale = new StaleSessionCookie({ session, domain: 'example.com' })
    const req = buildRequest({ headers: { Cookie: 'sessionid=x' } })
    const own = jsonResponse(200, {}, [['Set-Cookie', 'sessionid=new; Path=/']])
    expect(stale.process(req, own)).toBe(own)
    expect(header(stale.process(req, jsonResponse(200, {})), 'Set-Cookie')).toEqual([
      'sessionid=""; Domain=example.com; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; SameSite=Lax',
    ])
    expect(deletedCookie('__Host-s', { path: '/app/', sameSite: 'Strict' })).toBe('__Host-s=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/app/; SameSite=Strict; Secure')
  })
})
