// The sign-in, consent and error pages: server-rendered, self-contained (no external assets, no script), every
// value escaped. The one inline style is allowed by its hash, so the policy needs no 'unsafe-inline'.
import { createHash } from 'node:crypto';

const CSS = `body{font:16px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1c1e21;margin:0}
main{max-width:26rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 3px #0003}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;border:1px solid #999;border-radius:4px}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.7rem;font-size:1rem;font-weight:600;border-radius:4px;border:2px solid #1a56db;cursor:pointer;background:#1a56db;color:#fff}
button.secondary{background:#fff;color:#1a56db}
.error{background:#fde8e8;color:#9b1c1c;padding:.6rem;border-radius:4px}
ul{padding-left:1.2rem}li{margin:.4rem 0}.muted{color:#555;font-size:.9rem}`;

/** The Content-Security-Policy of every page: nothing loads, nothing frames us. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const escapeHtml = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)} · Carshare</title><style>${CSS}</style></head>
<body><main>${body}</main></body></html>`;
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

export function loginPage(p: {
  action: string;
  csrf: string;
  appName: string;
  username?: string;
  error?: string;
}): string {
  return layout(
    'Sign in',
    `<h1>Sign in to continue to ${escapeHtml(p.appName)}</h1>
${p.error ? `<p class="error" role="alert">${escapeHtml(p.error)}</p>` : ''}
<form method="post" action="${escapeHtml(p.action)}" autocomplete="on">
${hidden('csrf', p.csrf)}
<label for="username">E-mail address</label>
<input id="username" name="username" type="email" required autofocus autocomplete="username" value="${escapeHtml(p.username ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password">
<div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  );
}

export function consentPage(p: {
  action: string;
  csrf: string;
  appName: string;
  appDescription: string | null;
  username: string;
  scopes: { name: string; description: string }[];
  keepsAccess: boolean;
}): string {
  const items = p.scopes
    .map((s) => `<li>${escapeHtml(s.description)} <span class="muted">(${escapeHtml(s.name)})</span></li>`)
    .join('\n');
  return layout(
    'Allow access',
    `<h1>${escapeHtml(p.appName)} wants to access your Carshare account</h1>
${p.appDescription ? `<p class="muted">${escapeHtml(p.appDescription)}</p>` : ''}
<p>Signed in as <strong>${escapeHtml(p.username)}</strong>. If you allow it, ${escapeHtml(p.appName)} will be able to:</p>
<ul>${items}</ul>
${p.keepsAccess ? `<p class="muted">${escapeHtml(p.appName)} can keep this access while you are away, until you disconnect it.</p>` : ''}
<form method="post" action="${escapeHtml(p.action)}">
${hidden('csrf', p.csrf)}
<div class="actions"><button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="allow">Allow</button></div>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
