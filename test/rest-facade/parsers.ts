// Small independent readers for the facade's text formats (JSV and CSV), written from CONTRACT §11 and
// research/rest-conventions.md §4.2, so tests can parse the output back and compare it with the JSON.

export type Jsv = string | Jsv[] | { [k: string]: Jsv };

/** Parses JSV: scalars come back as their text (quoted strings unquoted, `""` → `"`). */
export function parseJsv(text: string): Jsv {
  let i = 0;
  const value = (): Jsv => {
    const c = text[i];
    if (c === '{') {
      i++;
      const out: Record<string, Jsv> = {};
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        const key = scalar(true);
        if (text[i] !== ':') throw new Error(`expected : at ${i}`);
        i++;
        out[key] = value();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return out;
        } else throw new Error(`expected , or } at ${i}`);
      }
    }
    if (c === '[') {
      i++;
      const out: Jsv[] = [];
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return out;
        } else throw new Error(`expected , or ] at ${i}`);
      }
    }
    return scalar(false);
  };
  const scalar = (key: boolean): string => {
    if (text[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated string');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            s += '"';
            i += 2;
            continue;
          }
          i++;
          return s;
        }
        s += text[i++];
      }
    }
    const start = i;
    // A raw value ends at , } ] (and a key at :); dates carry : inside values.
    while (i < text.length && !',}]'.includes(text[i]!) && !(key && text[i] === ':')) i++;
    return text.slice(start, i);
  };
  const v = value();
  if (i !== text.length) throw new Error(`trailing text at ${i}`);
  return v;
}

/** Parses CSV with CRLF row ends and `"` quoting; every row must end in CRLF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        cell += c;
        i++;
      }
    } else if (c === '"') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(cell);
      cell = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 2;
    } else if (c === '\n' || c === '\r') throw new Error(`bare line break at ${i}`);
    else {
      cell += c;
      i++;
    }
  }
  if (cell !== '' || row.length > 0) throw new Error('the last row does not end in CRLF');
  return rows;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * Whether text-format data (JSV tree or CSV cell) says the same as the JSON value: numbers and booleans by
 * their text (`True`/`False`), dates as the same instant in any of the short forms, nulls absent.
 */
export function sameData(text: Jsv | undefined, json: unknown): boolean {
  if (json === null || json === undefined) return text === undefined || text === '';
  if (Array.isArray(json))
    return Array.isArray(text) && text.length === json.length && json.every((j, k) => sameData(text[k], j));
  if (typeof json === 'object') {
    if (typeof text !== 'object' || Array.isArray(text)) return false;
    const keys = Object.entries(json as object).filter(([, v]) => v !== null);
    return (
      Object.keys(text).length === keys.length &&
      keys.every(([k, v]) => sameData((text as Record<string, Jsv>)[k], v))
    );
  }
  if (typeof text !== 'string') return false;
  if (typeof json === 'boolean') return text === (json ? 'True' : 'False');
  if (typeof json === 'number') return Number(text) === json;
  if (typeof json === 'string' && ISO.test(json)) {
    const t = /^\d{4}-\d\d-\d\d$/.test(text) ? `${text}T00:00:00Z` : text;
    return new Date(t).getTime() === new Date(json).getTime();
  }
  return text === json;
}
