// One SQL statement per search page: filter, sort (ties broken by id), optional DISTINCT ON, and the total.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PageRequest } from '../shared/pagination.js';
import { runRead } from './rows.js';
import { carShareOf } from './scope.js';

export interface SearchQuery {
  /**
   * Table name (trusted: written in code, never from input). Searched with a car share's EntityManager, it is a car
   * share table and its `car_share_id = ?` is added here (CONTRACT §25); a WHERE fragment that reads another table
   * (a subquery) names the car share for that one itself. Searched with `deploymentEm`, it is a platform table.
   */
  table: string;
  /** WHERE fragments joined by AND, with `?` placeholders. */
  where: string[];
  params: unknown[];
  /** Maps canonical field names (sortable/distinct) to trusted column expressions. */
  columns: Readonly<Record<string, string>>;
  /** Computed output columns: alias → trusted expression without placeholders (a search's distance). */
  computed?: Readonly<Record<string, string>>;
  /**
   * What each row returns (trusted), instead of the table's columns: expressions over the rows as `table.column`
   * (a view, src/db/views.ts, and what it embeds), whose `?` take `params`. The computed columns follow.
   */
  select?: { sql: string; params: readonly unknown[] };
}

export interface SearchResult<Row> {
  rows: Row[];
  total: number;
}

/**
 * Runs the page query; the total rides on the same statement as a window count. Only a page past the end
 * (no rows, offset > 0) costs a second statement to learn the total.
 */
export async function searchRows<Row extends object>(
  em: EntityManager,
  q: SearchQuery,
  page: PageRequest,
): Promise<SearchResult<Row>> {
  const carShareId = carShareOf(em);
  const conditions = carShareId === undefined ? q.where : ['car_share_id = ?', ...q.where];
  const params = carShareId === undefined ? q.params : [carShareId, ...q.params];
  const where = conditions.length > 0 ? `where ${conditions.join(' and ')}` : '';
  const col = (field: string): string => {
    const c = q.columns[field];
    if (!c) throw new Error(`no column for field ${field} on ${q.table}`);
    return c;
  };
  const dir = page.sort.direction === 'Descending' ? 'desc' : 'asc';
  const order = `${col(page.sort.by)} ${dir}, id ${dir}`;
  const computed = Object.entries(q.computed ?? {})
    .map(([alias, expr]) => `, ${expr} as "${alias}"`)
    .join('');
  // The distinct rows go by the table's name too, so a select list reads them as it reads the table's.
  const source = page.distinct
    ? `(select distinct on (${col(page.distinct)}) *${computed} from ${q.table} ${where} order by ${col(page.distinct)}, ${order}) ${q.table}`
    : `${q.table} ${where}`;
  const alreadyComputed = Object.keys(q.computed ?? {})
    .map((alias) => `, "${alias}"`)
    .join('');
  const outer = !page.distinct ? computed : q.select ? alreadyComputed : '';
  const selected = q.select?.sql ?? '*';
  const sql = `select ${selected}${outer}, count(*) over () as "__total" from ${source} order by ${order} limit ? offset ?`;
  const rows = await runRead<Row & { __total: string }>(em, sql, [
    ...(q.select?.params ?? []),
    ...params,
    page.limit,
    page.offset,
  ]);
  let total = rows.length > 0 ? Number(rows[0]!.__total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const countSql = page.distinct
      ? `select count(distinct ${col(page.distinct)}) as n from ${q.table} ${where}`
      : `select count(*) as n from ${q.table} ${where}`;
    const [r] = await runRead<{ n: string }>(em, countSql, params);
    total = Number(r?.n ?? 0);
  }
  for (const r of rows) delete (r as { __total?: string }).__total;
  return { rows, total };
}

/**
 * Adds `column = ?` for each argument that was given (not undefined or null). Columns are trusted names written
 * in code; values travel as parameters.
 */
export function whereEquals<A extends object>(
  where: string[],
  params: unknown[],
  args: A,
  columnsByArg: Partial<Record<keyof A & string, string>>,
): void {
  for (const [arg, col] of Object.entries(columnsByArg) as [keyof A & string, string][]) {
    const v = args[arg];
    if (v !== undefined && v !== null) {
      where.push(`${col} = ?`);
      params.push(v);
    }
  }
}
