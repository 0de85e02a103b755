/**
 * A configuration value (an environment variable, a CLI option, a setting) fit for an error
 * message or a log line, in whatever syntax it holds credentials:
 *
 * - URL user info, in any scheme and in lists of URLs: everything between `//` (or the first
 *   `:`, or the start) and the *last* `@` is masked, so a password holding `/`, `?`, `#`, `,`
 *   or `@` never shows (`redis://user:pw@h:7000` → `redis://***@h:7000`). An `@` later in the
 *   text masks the host as well: a message says less rather than a secret.
 * - `key=value` pairs whose key names a secret (`password`, `sslpassword`, `passwd`, `pwd`,
 *   `secret`, `client_secret`, `token`, `api_key`, …; any case, the name percent-encoded or
 *   not, as libpq decodes it): in a URL's query up to the next `&` or `#`, in a libpq
 *   `key=value` string up to the next blank, or the whole single-quoted value
 *   (`password='a b\'c'`).
 *
 * Linear in the length of `value`. Used for every configuration value that enters a message,
 * so that a mistyped `DATABASE_URL` or `REDIS_CLUSTER_NODES` does not print its password.
 */
export function redactConfigValue(value: string): string {
  return maskUserInfo(maskSecretPairs(value))
}

/** Keys whose value is a secret, compared lower-case after percent-decoding. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'password',
  'passwd',
  'pwd',
  'pass',
  'sslpassword',
  'secret',
  'client_secret',
  'clientsecret',
  'token',
  'access_token',
  'refresh_token',
  'api_key',
  'apikey',
  'auth',
])

/** A key (after the start, a blank or a separator), then `=` with optional blanks around it. */
const PAIR = /(^|[\s?&;,])([^\s?&;,=]+)(\s*=\s*)/g

function maskSecretPairs(value: string): string {
  if (!value.includes('=')) return value
  // A URL's query ends a value at `&` or `#`; a libpq key=value string only at a blank.
  const isUrl = /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)
  let out = ''
  let copied = 0
  PAIR.lastIndex = 0
  for (let match = PAIR.exec(value); match !== null; match = PAIR.exec(value)) {
    const key = match[2] ?? ''
    if (!SECRET_KEYS.has(decodedKey(key).toLowerCase())) {
      // Resume right after the key: the next pair may start at its `&` (a key never holds `=`).
      PAIR.lastIndex = match.index + (match[1] ?? '').length + key.length
      continue
    }
    const start = match.index + match[0].length
    const end = valueEnd(value, start, isUrl)
    out += `${value.slice(copied, start)}***`
    copied = end
    PAIR.lastIndex = end
  }
  return out + value.slice(copied)
}

/** Where the value starting at `start` ends: a closing quote (with `\` escapes), or a terminator. */
function valueEnd(value: string, start: number, isUrl: boolean): number {
  if (!isUrl && value[start] === "'") {
    let i = start + 1
    while (i < value.length && value[i] !== "'") i += value[i] === '\\' ? 2 : 1
    return Math.min(i + 1, value.length)
  }
  let i = start
  while (i < value.length && !/\s/.test(value[i] as string) && !(isUrl && (value[i] === '&' || value[i] === '#'))) i++
  return i
}

/** A key percent-decoded (`pass%77ord`), undecodable text as it is. */
function decodedKey(key: string): string {
  try {
    return decodeURIComponent(key.replaceAll('+', ' '))
  } catch {
    return key
  }
}

function maskUserInfo(value: string): string {
  const at = value.lastIndexOf('@')
  if (at === -1) return value
  const slashes = value.indexOf('//')
  const start = slashes !== -1 && slashes < at ? slashes + 2 : value.indexOf(':') < at ? value.indexOf(':') + 1 : 0
  return `${value.slice(0, start)}***${value.slice(at)}`
}
