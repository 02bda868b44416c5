// Long ids in tables: the first 8 characters, the whole id on hover (title) and a copy button the script reveals,
// so a row stays narrow enough for a 1280-pixel screen and the full value is one click away.
import { type Html, html } from './html.js';

export function shortId(id: string, label = 'id'): Html {
  return html`<span class="id" title="${id}"><code>${id.slice(0, 8)}…</code><button type="button" class="copy-id secondary" data-copy-value="${id}" aria-label="Copy the full ${label}" hidden>Copy</button></span>`;
}

/** A short id that is also a link (to the subject's own page). */
export function shortIdLink(id: string, path: string, label = 'id'): Html {
  return html`<span class="id" title="${id}"><a href="${path}"><code>${id.slice(0, 8)}…</code></a><button type="button" class="copy-id secondary" data-copy-value="${id}" aria-label="Copy the full ${label}" hidden>Copy</button></span>`;
}
