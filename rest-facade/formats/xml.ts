// XML (CONTRACT §11): `<Response>` holding the envelope's properties in JSON order; arrays of objects as
// elements named by the singular, arrays of scalars as `<Item>`; nulls omitted; all text escaped.

/** Characters XML 1.0 forbids are dropped rather than breaking the document. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters to drop
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export const escapeXml = (s: string): string =>
  s.replace(INVALID, '').replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Element names come from property names; anything not a name character becomes `_`. */
const elementName = (k: string): string => {
  const n = k.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(n) ? n : `_${n}`;
};

export const singular = (name: string): string =>
  name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name;

function content(value: unknown, name: string): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeXml(value);
  if (Array.isArray(value)) {
    const child = value.some((v) => v !== null && typeof v === 'object' && !Array.isArray(v))
      ? elementName(singular(name))
      : 'Item';
    return value
      .filter((v) => v !== null && v !== undefined)
      .map((v) => element(child, v))
      .join('');
  }
  if (value !== null && typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => element(k, v))
      .join('');
  return '';
}

function element(name: string, value: unknown): string {
  const n = elementName(name);
  return `<${n}>${content(value, name)}</${n}>`;
}

export function xml(envelope: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="utf-8"?>${element('Response', envelope)}`;
}
