// HTML built by a tagged template that escapes every interpolated value unless it is itself built HTML.

const BRAND = Symbol.for('carshare.dashboard.html');

export interface Html {
  readonly [BRAND]: true;
  readonly value: string;
}

const raw = (value: string): Html => ({ [BRAND]: true, value });
const isHtml = (v: unknown): v is Html => typeof v === 'object' && v !== null && BRAND in v;

export const escapeHtml = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function render(v: unknown): string {
  if (isHtml(v)) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(v);
}

/** `html\`<p>${name}</p>\``: strings, numbers and arrays of either are escaped; Html values are kept. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return raw(out);
}

/** A date as people read it, in UTC (the service's only time zone); empty when there is none. */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">never</span>`;
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
  return html`<time datetime="${iso}">${text}</time>`;
}

/** A URL with query parameters; undefined and empty values are left out. */
export function href(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
