// Reads a request's parameters: the body (JSON or form, 1 MiB at most) and the query string, merged by
// any-case name with the query winning (CONTRACT §2).
import type { IncomingMessage } from 'node:http';
import { fieldError, fieldErrors, restError } from './errors.js';
import { nameKey } from './names.js';

export const BODY_LIMIT = 1024 * 1024;

export interface Param {
  /** The name as the client wrote it. */
  name: string;
  value: unknown;
  /** Came from a form or the query string, so every scalar is text to be coerced. */
  text: boolean;
  source: 'body' | 'query';
}

/** Parameters by normalised name (`nameKey`). */
export type Params = Map<string, Param>;

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_LIMIT) throw restError('PayloadTooLarge', 'The request body is larger than 1 MiB');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw restError('PayloadTooLarge', 'The request body is larger than 1 MiB');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function fromSearchParams(sp: URLSearchParams, source: Param['source'], into: Params): void {
  const seen = new Map<string, string[]>();
  for (const [name, value] of sp) {
    // ServiceStack skips empty query and form values; a client clears a property with JSON null.
    if (value === '') continue;
    const key = nameKey(name);
    const values = seen.get(key) ?? [];
    values.push(value);
    seen.set(key, values);
    into.set(key, { name, value: values.length === 1 ? value : [...values], text: true, source });
  }
}

/** A form body that is really a JSON object or array (as a form it would be one key with no value). */
function looksLikeJson(text: string): boolean {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** The body's parameters: JSON object or form; an empty body is fine whatever its type. */
export async function bodyParams(req: IncomingMessage): Promise<Params> {
  const raw = await readRaw(req);
  const params: Params = new Map();
  if (raw.length === 0 || raw.toString('utf8').trim() === '') return params;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const text = raw.toString('utf8');
    if (looksLikeJson(text))
      throw restError(
        'InvalidFormat',
        'The request body is JSON but was sent as a form (application/x-www-form-urlencoded, what `curl -d` sends by default): send the header Content-Type: application/json',
      );
    fromSearchParams(new URLSearchParams(text), 'body', params);
    return params;
  }
  if (type !== 'application/json' && !type.endsWith('+json'))
    throw restError(
      'UnsupportedMediaType',
      `The request body must be application/json or application/x-www-form-urlencoded, not ${type || 'untyped'}`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw restError('InvalidFormat', 'The request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw fieldErrors([fieldError('InvalidFormat', 'Body', 'The request body must be a JSON object')]);
  for (const [name, value] of Object.entries(parsed))
    params.set(nameKey(name), { name, value, text: false, source: 'body' });
  return params;
}

/** Body first, then the query string on top: a query value wins over the same body property. */
export function mergeParams(body: Params, querystring: string): Params {
  const merged: Params = new Map(body);
  fromSearchParams(new URLSearchParams(querystring), 'query', merged);
  return merged;
}

/** The value of a control parameter (`format`, `embed`, `filter`) from the query string, any case. */
export function queryValue(querystring: string, name: string): string | undefined {
  for (const [k, v] of new URLSearchParams(querystring)) if (nameKey(k) === name) return v;
  return undefined;
}

/** A parameter as text, for a path parameter sent as a property; `undefined` when absent or null. */
export function propertyText(params: Params, name: string): string | undefined {
  const p = params.get(nameKey(name));
  if (p === undefined || p.value === null || p.value === undefined) return undefined;
  if (typeof p.value === 'object') return JSON.stringify(p.value);
  return String(p.value);
}
