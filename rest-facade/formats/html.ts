// HTML (CONTRACT §11): a readable page of the same data, rendered on the server with every value escaped:
// definition lists for objects, tables for lists, links to the same URL in the other formats.

export const escapeHtml = (s: string): string =>
  s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function scalar(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' && /^https:\/\/[^\s]+$/.test(v))
    return `<a href="${escapeHtml(v)}">${escapeHtml(v)}</a>`;
  return escapeHtml(String(v));
}

function render(v: unknown): string {
  if (Array.isArray(v)) {
    if (!v.some(isObject)) return v.map(scalar).join(', ');
    const columns = [...new Set(v.filter(isObject).flatMap((o) => Object.keys(o)))];
    const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
    const rows = v
      .filter(isObject)
      .map((o) => `<tr>${columns.map((c) => `<td>${render(o[c])}</td>`).join('')}</tr>`)
      .join('');
    return `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
  }
  if (isObject(v))
    return `<dl>${Object.entries(v)
      .filter(([, x]) => x !== null && x !== undefined)
      .map(([k, x]) => `<dt>${escapeHtml(k)}</dt><dd>${render(x)}</dd>`)
      .join('')}</dl>`;
  return scalar(v);
}

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}' +
  'td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}' +
  'dl{margin:0}dt{font-weight:600}dd{margin:0 0 .4em 1.2em}pre{background:#f6f6f6;padding:1em;overflow:auto}';

/** `url` is the request's path and query; the format links replace its `format` parameter. */
export function html(envelope: Record<string, unknown>, title: string, url: URL): string {
  const link = (f: string): string => {
    const u = new URL(url);
    for (const k of [...u.searchParams.keys()]) if (k.toLowerCase() === 'format') u.searchParams.delete(k);
    u.searchParams.set('format', f);
    return `<a href="${escapeHtml(u.pathname + u.search)}">${f}</a>`;
  };
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>` +
    `<h1>${escapeHtml(title)}</h1>` +
    `<nav>in other formats: ${['json', 'xml', 'csv', 'jsv'].map(link).join(' · ')}</nav>` +
    `<main>${render(envelope)}</main>` +
    `<details><summary>JSON</summary><pre>${escapeHtml(JSON.stringify(envelope, null, 2))}</pre></details>` +
    '</body></html>'
  );
}
