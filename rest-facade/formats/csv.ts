// CSV (CONTRACT §11): one row per resource of a list (or the one resource), header row, CRLF, JSV cells.
import { jsv, shortDate } from './jsv.js';

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s: string;
  if (typeof value === 'boolean') s = value ? 'True' : 'False';
  else if (typeof value === 'number') s = String(value);
  else if (typeof value === 'string') s = shortDate(value) ?? value;
  // Nested objects and arrays are written as JSV, then quoted like any other cell.
  else s = jsv(value);
  return /["\r\n,]/.test(s) || s.startsWith('[') || s.startsWith('{') ? `"${s.replaceAll('"', '""')}"` : s;
}

const row = (cells: string[]): string => `${cells.join(',')}\r\n`;

/**
 * `rows` are PascalCase objects; `columns` the header (Id plus the resource's fields, or the field selection's).
 * A column missing from every row is still written, as ServiceStack writes a type's every property.
 */
export function csv(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  return row([...columns]) + rows.map((r) => row(columns.map((c) => cell(r[c])))).join('');
}
