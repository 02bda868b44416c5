// Search arguments (sort, limit, offset, distinct) validated against each list's fields (CONTRACT §3).
import { type FieldError, fieldLabel, validationError } from './errors.js';

export type Direction = 'Ascending' | 'Descending';
export interface SortSpec {
  by: string;
  direction: Direction;
}
export interface PageArgs {
  sort?: string | null | undefined;
  limit?: number | null | undefined;
  offset?: number | null | undefined;
  distinct?: string | null | undefined;
}
export interface PageRequest {
  limit: number;
  offset: number;
  sort: SortSpec;
  distinct: string | null;
}
export interface Page<T> extends PageRequest {
  total: number;
  nodes: T[];
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** Field names match ignoring case, `_` and `-` (CONTRACT §2). */
export const fieldKey = (name: string): string => name.replace(/[_-]/g, '').toLowerCase();

export function matchField(name: string, fields: readonly string[]): string | undefined {
  const key = fieldKey(name.trim());
  return fields.find((f) => fieldKey(f) === key);
}

export interface PageRules {
  /** Canonical (camelCase) field names a list may be sorted or made distinct by. */
  fields: readonly string[];
  /** e.g. `-createdDateUtc` */
  defaultSort: string;
}

export function parseSort(raw: string, fields: readonly string[]): SortSpec | undefined {
  const s = raw.trim();
  // A raw `+` in a query string decodes to a space, which trim() has already removed.
  const descending = s.startsWith('-');
  const name = s.replace(/^[-+]/, '');
  const by = matchField(name, fields);
  return by ? { by, direction: descending ? 'Descending' : 'Ascending' } : undefined;
}

export function pageRequest(args: PageArgs, rules: PageRules): PageRequest {
  const errors: FieldError[] = [];
  const limit = args.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    errors.push({
      code: 'OutOfRange',
      field: 'limit',
      message: `Limit must be between 1 and ${MAX_LIMIT}`,
      meta: { Min: 1, Max: MAX_LIMIT },
    });
  const offset = args.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    errors.push({
      code: 'OutOfRange',
      field: 'offset',
      message: 'Offset must be 0 or more',
      meta: { Min: 0 },
    });
  const sortRaw = args.sort && args.sort.trim() !== '' ? args.sort : rules.defaultSort;
  const sort = parseSort(sortRaw, rules.fields);
  if (!sort)
    errors.push({
      code: 'InvalidValue',
      field: 'sort',
      message: `Sort must name one of: ${rules.fields.join(', ')}`,
      meta: { Allowed: rules.fields },
    });
  let distinct: string | null = null;
  if (args.distinct && args.distinct.trim() !== '') {
    distinct = matchField(args.distinct, rules.fields) ?? null;
    if (!distinct)
      errors.push({
        code: 'InvalidValue',
        field: 'distinct',
        message: `Distinct must name one of: ${rules.fields.join(', ')}`,
        meta: { Allowed: rules.fields },
      });
  }
  if (errors.length > 0) throw validationError(errors);
  return { limit, offset, sort: sort!, distinct };
}

/** Checks an optional [from, to) range: both valid dates and from < to. */
export function checkRange(
  fromField: string,
  from: Date | null | undefined,
  toField: string,
  to: Date | null | undefined,
): void {
  if (from && to && from.getTime() >= to.getTime())
    throw validationError([
      {
        code: 'InvalidValue',
        field: fromField,
        message: `${fieldLabel(fromField)} must be before ${fieldLabel(toField)}`,
      },
    ]);
}
