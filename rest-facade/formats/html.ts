// HTML (CONTRACT §11): a readable page of the same data, rendered on the server with every value escaped:
// definition lists for objects, tables for lists, links to the same URL in the other formats. It is read at
// laptop widths (1280 px), so a list of wide resources folds what is embedded and wraps what is long.

export const escapeHtml = (s: string): string =>
  s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const present = (o: Obj) => Object.entries(o).filter(([, x]) => x !== null && x !== undefined);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Above this many columns a list is no longer a grid of cells: each row shows its fields as a wrapping list. */
const MAX_COLUMNS = 6;

/** A name that may break between its words: `MinimumBookingMinutes` → `Minimum<wbr>Booking<wbr>Minutes`. */
const name = (k: string): string => escapeHtml(k).replace(/(?<=[a-z])(?=[A-Z])/g, '<wbr>');

function scalar(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  if (typeof v === 'string' && /^https:\/\/[^\s]+$/.test(v))
    return `<a href="${escapeHtml(v)}">${escapeHtml(v)}</a>`;
  // An id is read and copied whole: one line, in a typeface where 0 and O differ.
  if (UUID.test(s)) return `<code class="id">${escapeHtml(s)}</code>`;
  // A date and time may break after its date, and nowhere else.
  if (/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(s)) return escapeHtml(s).replace('T', '<wbr>T');
  return escapeHtml(s);
}

/** What a folded embedded resource shows before it is opened: its kind and a name if it has one. */
function summaryOf(key: string, v: unknown): string {
  if (Array.isArray(v)) return `${name(key)} <span class="n">(${v.length})</span>`;
  const o = v as Obj;
  const label = o.DisplayName ?? o.Name ?? o.Username ?? o.Kind ?? o.Average;
  return `${name(key)}${label === undefined ? '' : ` <span class="n">${escapeHtml(String(label))}</span>`}`;
}

/** One field inside a row of a wide list: long text takes the whole width, small value objects stay inline. */
function field(key: string, v: unknown): string {
  const folds = Array.isArray(v)
    ? v.some(isObject)
    : isObject(v) && ('Id' in v || present(v).some(([, x]) => typeof x === 'object'));
  if (folds)
    return `<div class="fold"><details><summary>${summaryOf(key, v)}</summary>${isObject(v) ? fields(present(v)) : block(v)}</details></div>`;
  const long = typeof v === 'string' && v.length > 40 && !UUID.test(v);
  const kind = long ? ' class="wide"' : typeof v === 'string' && UUID.test(v) ? ' class="id"' : '';
  return `<div${kind}><dt>${name(key)}</dt><dd>${isObject(v) ? inline(v) : block(v)}</dd></div>`;
}

const fields = (entries: [string, unknown][]): string =>
  `<dl class="fields">${entries.map(([k, x]) => field(k, x)).join('')}</dl>`;

/** A small value object (Money, LicensePlate) on one line: `Amount 10.00 · Currency USD`. */
const inline = (o: Obj): string =>
  `<dl class="inline">${present(o)
    .map(([k, x]) => `<dt>${name(k)}</dt> <dd>${scalar(x)}</dd>`)
    .join(' ')}</dl>`;

function table(rows: Obj[]): string {
  const columns = [...new Set(rows.flatMap((o) => Object.keys(o)))];
  if (columns.length <= MAX_COLUMNS) {
    const head = columns.map((c) => `<th>${name(c)}</th>`).join('');
    const body = rows
      .map((o) => `<tr>${columns.map((c) => `<td>${cell(o[c])}</td>`).join('')}</tr>`)
      .join('');
    return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
  }
  // Wide resources: the id in its own column, every other field in a grid that wraps within the row.
  const body = rows
    .map((o) => {
      const rest = present(o).filter(([k]) => k !== 'Id');
      return `<tr><td>${scalar(o.Id)}</td><td>${fields(rest)}</td></tr>`;
    })
    .join('');
  return `<table class="wide"><thead><tr><th>Id</th><th>Fields</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** A value inside a table cell: objects fold, so one row stays one row. */
function cell(v: unknown): string {
  if (isObject(v) || (Array.isArray(v) && v.some(isObject)))
    return `<details><summary>${summaryOf('', v).trim() || 'details'}</summary>${block(v)}</details>`;
  return block(v);
}

function block(v: unknown): string {
  if (Array.isArray(v)) return v.some(isObject) ? table(v.filter(isObject)) : v.map(scalar).join(', ');
  if (isObject(v))
    return `<dl>${present(v)
      .map(([k, x]) => `<dt>${name(k)}</dt><dd>${block(x)}</dd>`)
      .join('')}</dl>`;
  return scalar(v);
}

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:1.5em;color:#222;max-width:1240px}' +
  'table{border-collapse:collapse;max-width:100%}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}' +
  'dl{margin:0}dt{font-weight:600}dd{margin:0 0 .4em 1.2em;overflow-wrap:break-word}' +
  'code.id{font:12px ui-monospace,monospace;white-space:nowrap}' +
  'dl.fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(12em,1fr));gap:.1em 1em}' +
  'dl.fields>div>dd{margin:0}dl.fields>.wide,dl.fields>.fold{grid-column:1/-1}dl.fields>.id{grid-column:span 2}' +
  'dl.inline>dt,dl.inline>dd{display:inline;margin:0}dl.inline>dt{font-weight:400;color:#666;white-space:nowrap}' +
  'summary{cursor:pointer;color:#1a56db}summary .n{color:#444}details[open]{padding:.2em 0 .4em}' +
  'pre{background:#f6f6f6;padding:1em;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere}';

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
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>` +
    `<h1>${escapeHtml(title)}</h1>` +
    `<nav>in other formats: ${['json', 'xml', 'csv', 'jsv'].map(link).join(' · ')}</nav>` +
    `<main>${block(envelope)}</main>` +
    `<details><summary>JSON</summary><pre>${escapeHtml(JSON.stringify(envelope, null, 2))}</pre></details>` +
    '</body></html>'
  );
}
