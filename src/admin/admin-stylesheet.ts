/**
 * The admin pages' one stylesheet, served from the admin's own path (`admin.css`) so the
 * Content-Security-Policy can say `style-src 'self'` and allow no inline style or script.
 */
export const ADMIN_STYLESHEET = `:root{--ink:#1d2330;--muted:#5b6474;--line:#d8dde6;--brand:#264b8c;--bad:#a12a2a;--ok:#1e6b3a;--bg:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
header.bar{display:flex;align-items:center;justify-content:space-between;padding:.7rem 1.5rem;background:var(--brand);color:#fff}
header.bar a{color:#fff;text-decoration:none;font-weight:600}
header.bar form{display:inline}
header.bar .who{font-size:.9rem;opacity:.9;margin-right:.6rem}
main{max-width:62rem;margin:1.5rem auto;padding:0 1.5rem}
h1{font-size:1.45rem;margin:.2rem 0 1rem}
h2{font-size:1.1rem;margin:1.6rem 0 .6rem}
section.card{background:#fff;border:1px solid var(--line);border-radius:6px;padding:1rem 1.2rem;margin-bottom:1rem}
table{width:100%;border-collapse:collapse;background:#fff}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--line);vertical-align:middle}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
td.actions{text-align:right;white-space:nowrap}
a{color:var(--brand)}
label{display:block;font-weight:600;margin:.6rem 0 .2rem}
label.check{display:flex;gap:.4rem;align-items:center;font-weight:400}
input[type=text],input[type=password],input[type=search]{width:100%;max-width:24rem;padding:.4rem .5rem;border:1px solid var(--line);border-radius:4px;font:inherit}
button{font:inherit;padding:.35rem .8rem;border-radius:4px;border:1px solid var(--brand);background:var(--brand);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--brand)}
button.danger{background:var(--bad);border-color:var(--bad)}
header.bar button{background:transparent;border-color:#fff}
form.inline{display:inline}
form.search{display:flex;gap:.5rem;margin-bottom:1rem}
.tag{display:inline-block;font-size:.78rem;padding:0 .45rem;border-radius:9px;border:1px solid var(--line);color:var(--muted)}
.tag.on{color:var(--ok);border-color:var(--ok)}
.tag.off{color:var(--bad);border-color:var(--bad)}
.message{padding:.6rem .9rem;border-radius:4px;margin-bottom:1rem;background:#e8f3ec;border:1px solid #b9dcc6}
.message.error{background:#f8e9e9;border-color:#e3bcbc}
.key{display:block;font:1.05rem ui-monospace,monospace;padding:.6rem;background:var(--bg);border:1px dashed var(--brand);border-radius:4px;overflow-wrap:anywhere;user-select:all}
.muted{color:var(--muted)}
nav.pages{display:flex;gap:1rem;margin-top:.8rem}
dl{display:grid;grid-template-columns:10rem 1fr;gap:.3rem 1rem;margin:0}
dt{color:var(--muted)}
dd{margin:0}
`
