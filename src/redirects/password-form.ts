import type { ServerResponse } from 'node:http';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

const STYLE =
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;' +
  'background:#f4f5f7;color:#1d2330;display:flex;min-height:100vh;align-items:center;' +
  'justify-content:center}main{background:#fff;padding:2rem;border-radius:8px;width:100%;' +
  'max-width:22rem;box-shadow:0 1px 4px rgba(0,0,0,.15)}h1{font-size:1.25rem;margin:0 0 1rem}' +
  'label{display:block;font-weight:600;margin-bottom:.25rem}input[type=password]{box-sizing:' +
  'border-box;width:100%;padding:.6rem;font:inherit;border:1px solid #6b7280;border-radius:4px}' +
  'input:focus,button:focus{outline:3px solid #2563eb;outline-offset:2px}button{margin-top:1rem;' +
  'width:100%;padding:.6rem;font:inherit;font-weight:600;color:#fff;background:#1d4ed8;border:0;' +
  'border-radius:4px;cursor:pointer}.error{color:#b91c1c;margin:0 0 1rem;font-weight:600}';

/**
 * Where the form posts: the link's own absolute path on this host, each segment escaped. It never
 * starts with `//`, which a browser would read as another host's address.
 */
function formAction(linkPath: string): string {
  const segments = linkPath.split('/').filter((segment) => segment !== '');
  return `/${segments.map(encodeURIComponent).join('/')}`;
}

/**
 * The page a protected link answers (docs/api.md, "Link controls"): one labelled password field,
 * focused, posted to the link's own path (formAction) with the referrer the visitor came from
 * (recorded with the click, rather than the form itself). No script and nothing loaded from
 * elsewhere; `message` (fixed texts) is announced as an alert.
 */
export function passwordPage(
  linkPath: string,
  message: string | null,
  referrer: string | null,
): string {
  const error =
    message === null ? '' : `<p class="error" id="error" role="alert">${escapeHtml(message)}</p>`;
  const described = message === null ? '' : ' aria-describedby="error" aria-invalid="true"';
  const from =
    referrer === null
      ? ''
      : `<input type="hidden" name="referrer" value="${escapeHtml(referrer)}">`;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="robots" content="noindex">' +
    `<title>Password required</title><style>${STYLE}</style></head><body><main>` +
    '<h1>This link is protected</h1>' +
    `<form method="post" action="${escapeHtml(formAction(linkPath))}">${error}` +
    '<label for="password">Password</label>' +
    `<input id="password" name="password" type="password" autocomplete="current-password" required autofocus${described}>` +
    `${from}<button type="submit">Continue</button></form></main></body></html>`
  );
}

/**
 * The form's headers: never cached, framed or indexed; only its inline style may run, and it may
 * post only to this origin (`form-action 'self'`).
 */
export function writePasswordPage(
  res: ServerResponse,
  status: 200 | 401 | 429,
  body: string,
  head: boolean,
  retryAfterSeconds?: number,
): void {
  const headers: string[] = [
    'Content-Type',
    'text/html; charset=utf-8',
    'Cache-Control',
    'private, no-store',
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'X-Frame-Options',
    'DENY',
    'Referrer-Policy',
    'no-referrer',
    'X-Robots-Tag',
    'noindex',
    'Content-Length',
    String(Buffer.byteLength(body)),
  ];
  if (retryAfterSeconds !== undefined) headers.push('Retry-After', String(retryAfterSeconds));
  res.writeHead(status, headers);
  res.end(head ? undefined : body);
}
