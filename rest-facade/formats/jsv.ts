// JSV, ServiceStack's text format (CONTRACT §11): compact, CSV-style quoting, True/False, raw short dates.

const ESCAPE = /[":,{}[\]\r\n]/;
const ISO = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/;

/** A date's shortest form: `2026-07-03` at midnight, no fraction when whole seconds, else milliseconds. */
export function shortDate(s: string): string | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const fraction = m[3] && Number(m[3]) !== 0 ? m[3] : '';
  if (m[2] === '00:00:00' && fraction === '') return m[1];
  return `${m[1]}T${m[2]}${fraction}Z`;
}

export function jsvString(s: string): string {
  if (s === '') return '""';
  const date = shortDate(s);
  if (date) return date;
  return ESCAPE.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Writes a value as JSV; null properties are omitted, null array items leave an empty slot. */
export function jsv(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'string') return jsvString(value);
  if (Array.isArray(value)) return `[${value.map(jsv).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    parts.push(`${jsvString(k)}:${jsv(v)}`);
  }
  return `{${parts.join(',')}}`;
}

export type JsvValue = string | JsvValue[] | { [name: string]: JsvValue };

/** Nesting deeper than this is refused: a form value is a small object, not a way to exhaust the stack. */
const MAX_DEPTH = 32;

/**
 * Reads JSV (ServiceStack accepts it in form and query values, CONTRACT §16): objects, arrays and scalars as
 * text, a quoted string unquoted (`""` → `"`). Throws on malformed input.
 */
export function readJsv(text: string): JsvValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`JSV: ${what} at ${i}`);
  };
  const quoted = (): string => {
    let s = '';
    for (i++; i < text.length; i++) {
      if (text[i] !== '"') s += text[i];
      else if (text[i + 1] === '"') s += text[i++];
      else {
        i++;
        return s;
      }
    }
    return fail('unterminated string');
  };
  const scalar = (key: boolean): string => {
    if (text[i] === '"') return quoted();
    const start = i;
    // A raw value ends at , } ] and a key also at : (dates carry : inside values).
    while (i < text.length && !',}]'.includes(text[i]!) && !(key && text[i] === ':')) i++;
    return text.slice(start, i);
  };
  const sequence = <T>(close: string, item: () => T): T[] => {
    const out: T[] = [];
    i++;
    while (text[i] !== close) {
      out.push(item());
      if (text[i] === ',') i++;
      else if (text[i] !== close) fail(`expected , or ${close}`);
    }
    i++;
    return out;
  };
  const value = (depth: number): JsvValue => {
    if (depth > MAX_DEPTH) fail('too deep');
    if (text[i] === '[') return sequence(']', () => value(depth + 1));
    if (text[i] !== '{') return scalar(false);
    const entries = sequence('}', (): [string, JsvValue] => {
      const name = scalar(true).trim();
      if (text[i] !== ':') fail('expected :');
      i++;
      return [name, value(depth + 1)];
    });
    return Object.fromEntries(entries);
  };
  const v = value(0);
  if (i !== text.length) fail('trailing text');
  return v;
}
