// Picks the response format (CONTRACT §2): `format` wins, then `Accept` by quality and order, else JSON.
import { restError } from '../errors.js';

export const formats = ['json', 'xml', 'csv', 'jsv', 'html'] as const;
export type Format = (typeof formats)[number];

const byMediaType: Readonly<Record<string, Format>> = {
  'application/json': 'json',
  'text/json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'text/csv': 'csv',
  'text/jsv': 'jsv',
  'application/jsv': 'jsv',
  'text/html': 'html',
};

export const contentTypes = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  jsv: 'text/jsv; charset=utf-8',
  html: 'text/html; charset=utf-8',
} as const satisfies Record<Format, string>;

/** An unknown `format` value is 406 `UnsupportedFormat`, answered in JSON. */
export function formatParam(value: string | undefined): Format | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const f = value.trim().toLowerCase();
  if ((formats as readonly string[]).includes(f)) return f as Format;
  throw restError('UnsupportedFormat', `The format ${value} is not supported`, { Supported: [...formats] });
}

export function fromAccept(accept: string | undefined): Format {
  if (!accept) return 'json';
  let best: { format: Format; q: number; index: number } | undefined;
  accept.split(',').forEach((part, index) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const format = type === '*/*' ? 'json' : byMediaType[type ?? ''];
    if (!format) return;
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) return;
    // `*/*` loses to any named type of the same quality.
    const rank = type === '*/*' ? q - 0.0001 : q;
    if (!best || rank > best.q) best = { format, q: rank, index };
  });
  return best?.format ?? 'json';
}
