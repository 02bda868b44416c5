// Reading a recorded SQL statement for CONTRACT §25: which car share tables it names (after from, join, into or
// update, with their aliases), and which of them it does not give a `car_share_id = $n` condition. A statement is
// read as text, as the statement hook records it (`?` placeholders, or `$n`), not parsed: good enough for the
// statements this service writes, and checked against examples of both kinds in test/isolation/statements.test.ts.
import type { Orm } from '../../src/db/orm.js';

/** Every table that holds car share data: those with a car_share_id column (CONTRACT §24 rule 1). */
export async function carShareTableNames(orm: Orm): Promise<Set<string>> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ table_name: string }[]>(
      `select distinct table_name from information_schema.columns
        where table_schema = current_schema() and column_name = 'car_share_id'`,
    );
  return new Set(rows.map((t) => t.table_name));
}

/** Words that may follow a table name where an alias would stand. */
const NOT_ALIAS = new Set(
  `where on set join left right inner outer full cross natural lateral using order group limit offset having
   union except intersect returning values select for as default and or when window fetch do`
    .split(/\s+/)
    .filter(Boolean),
);

export interface TableRef {
  table: string;
  /** The alias it is read under; null when it is named by itself. */
  alias: string | null;
  insert: boolean;
}

const IDENT = '"?([a-z_][a-z0-9_]*)"?';
const PARAM = String.raw`(?:\?|\$\d+)`;
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const count = (sql: string, re: RegExp) => [...sql.matchAll(re)].length;

/** The car share tables (of `tables`) a statement names after from, join, into or update, with their aliases. */
export function tableRefs(sql: string, tables: ReadonlySet<string>): TableRef[] {
  const refs: TableRef[] = [];
  const re = new RegExp(
    String.raw`\b(from|join|into|update)\s+(?:only\s+)?${IDENT}(?:\s+(?:as\s+)?${IDENT})?`,
    'gi',
  );
  for (const m of sql.matchAll(re)) {
    const table = m[2]!.toLowerCase();
    if (!tables.has(table)) continue;
    const word = m[3]?.toLowerCase();
    const alias = word && !NOT_ALIAS.has(word) ? word : null;
    refs.push({ table, alias, insert: m[1]!.toLowerCase() === 'into' });
  }
  return refs;
}

/**
 * What a statement lacks: each car share table it reads, updates or deletes from needs its own
 * `<alias>.car_share_id = $n` (unqualified, or qualified by the table's name, when it is named without an alias),
 * as many as it is named under that alias; each insert names the car_share_id column.
 */
export function missingConditions(sql: string, tables: ReadonlySet<string>): string[] {
  const missing: string[] = [];
  const byAlias = new Map<string, TableRef[]>();
  for (const ref of tableRefs(sql, tables)) {
    if (ref.insert) {
      const columns = new RegExp(String.raw`\binto\s+"?${ref.table}"?\s*\(([^)]*)\)`, 'i').exec(sql)?.[1];
      if (!columns || !/"?car_share_id"?/.test(columns)) missing.push(`insert into ${ref.table}`);
      continue;
    }
    const key = ref.alias ?? '';
    byAlias.set(key, [...(byAlias.get(key) ?? []), ref]);
  }
  for (const [alias, list] of byAlias) {
    const qualified = alias
      ? new RegExp(String.raw`"?${literal(alias)}"?\."?car_share_id"?\s*=\s*${PARAM}`, 'gi')
      : new RegExp(String.raw`(?<![\w."])"?car_share_id"?\s*=\s*${PARAM}`, 'gi');
    const byName = alias
      ? 0
      : [...new Set(list.map((ref) => ref.table))].reduce(
          (n, table) =>
            n + count(sql, new RegExp(String.raw`"?${table}"?\."?car_share_id"?\s*=\s*${PARAM}`, 'gi')),
          0,
        );
    const have = count(sql, qualified) + byName;
    if (have < list.length)
      missing.push(
        `${list.map((ref) => ref.table).join(', ')}${alias ? ` as ${alias}` : ''}: ${have} of ${list.length}`,
      );
  }
  return missing;
}
