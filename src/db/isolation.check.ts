// The start-up check of CONTRACT §24 rule 6: the service refuses to start (exit 1, naming the table or the role)
// unless PostgreSQL enforces the isolation of car shares — every table with a car_share_id, and car_share, has
// row-level security enabled and forced and the one car_share_isolation policy, and DATABASE_APP_ROLE can neither
// bypass nor alter it (not a superuser, no BYPASSRLS, owns none of them).
import { CAR_SHARE_TABLE, carShareTable, carShareTables, type Sql } from './car-share-tables.js';

export const POLICY = 'car_share_isolation';

/** What the start-up check found wrong; its message names every table and role at fault. */
export class IsolationError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `car share isolation is not enforced by the database (CONTRACT §24), refusing to start:\n- ${problems.join('\n- ')}`,
    );
    this.name = 'IsolationError';
  }
}

/** The policy's expression compared loosely: case, spaces, parentheses, quotes and `::text` casts aside. */
const normalize = (expr: string): string =>
  expr
    .toLowerCase()
    .replaceAll('::text', '')
    .replace(/[\s()"]/g, '');
const CURRENT = normalize(`nullif(current_setting('carshare.car_share_id', true), '')::uuid`);
const isolates = (column: string, expr: string | null): boolean =>
  expr !== null && [`${column}=${CURRENT}`, `${CURRENT}=${column}`].includes(normalize(expr));

interface PolicyRow {
  name: string;
  permissive: boolean;
  cmd: string;
  binds_role: boolean;
  qual: string | null;
  check: string | null;
}

/** Rule 2's policy: for all commands, binding the app role, using and checking the car share of the transaction. */
const enforces = (p: PolicyRow, column: string): boolean =>
  p.cmd === '*' &&
  p.binds_role &&
  isolates(column, p.qual) &&
  // Without WITH CHECK, PostgreSQL checks new rows with USING.
  (p.check === null || isolates(column, p.check));

interface TableRow {
  name: string;
  rls: boolean;
  forced: boolean;
  owner: string;
  role_owns: boolean;
  policies: PolicyRow[];
}

export async function checkIsolation(sql: Sql, role: string): Promise<void> {
  const problems: string[] = [];
  const registry = await carShareTable(sql);
  if (!registry) problems.push(`the table ${CAR_SHARE_TABLE} is missing (are the migrations applied?)`);
  const tables = await carShareTables(sql);
  const oids = [...tables.map((t) => t.oid), ...(registry ? [registry.oid] : [])];

  const { rows: roles } = await sql.query<{ super: boolean; bypass: boolean; can_act: boolean }>(
    `select rolsuper as super, rolbypassrls as bypass, pg_has_role(current_user, oid, 'MEMBER') as can_act
       from pg_roles where rolname = $1`,
    [role],
  );
  const r = roles[0];
  if (!r) problems.push(`DATABASE_APP_ROLE "${role}" does not exist`);
  else {
    if (r.super)
      problems.push(`DATABASE_APP_ROLE "${role}" is a superuser: row-level security never binds it`);
    if (r.bypass)
      problems.push(`DATABASE_APP_ROLE "${role}" has BYPASSRLS: row-level security never binds it`);
    if (!r.can_act)
      problems.push(`the DATABASE_URL user cannot act as DATABASE_APP_ROLE "${role}" (SET ROLE)`);
  }

  const { rows } = await sql.query<TableRow>(
    `select c.oid::regclass::text as name, c.relrowsecurity as rls, c.relforcerowsecurity as forced,
            pg_get_userbyid(c.relowner) as owner,
            exists (select 1 from pg_roles r where r.rolname = $2 and not r.rolsuper
              and pg_has_role(r.oid, c.relowner, 'MEMBER'))
              as role_owns,
            coalesce((select json_agg(json_build_object(
                'name', p.polname, 'permissive', p.polpermissive, 'cmd', p.polcmd,
                'binds_role', 0::oid = any (p.polroles)
                  or exists (select 1 from pg_roles r where r.rolname = $2 and r.oid = any (p.polroles)),
                'qual', pg_get_expr(p.polqual, p.polrelid), 'check', pg_get_expr(p.polwithcheck, p.polrelid)))
              from pg_policy p where p.polrelid = c.oid), '[]') as policies
       from pg_class c where c.oid = any ($1::oid[]) order by 1`,
    [oids, role],
  );
  for (const t of rows) {
    const column = registry && t.name === registry.name ? 'id' : 'car_share_id';
    if (!t.rls) problems.push(`table ${t.name} does not have row-level security enabled`);
    if (!t.forced) problems.push(`table ${t.name} does not force row-level security`);
    const permissive = t.policies.filter((p) => p.permissive);
    const policy = permissive.find((p) => p.name === POLICY);
    if (!policy || !enforces(policy, column))
      problems.push(
        `table ${t.name} lacks the policy ${POLICY} (permissive, for all, using and with check ` +
          `${column} = nullif(current_setting('carshare.car_share_id', true), '')::uuid)`,
      );
    for (const other of permissive.filter((p) => p !== policy))
      problems.push(`table ${t.name} has another permissive policy, ${other.name}, which widens ${POLICY}`);
    if (t.role_owns)
      problems.push(
        t.owner === role
          ? `DATABASE_APP_ROLE "${role}" owns the table ${t.name}`
          : `DATABASE_APP_ROLE "${role}" is a member of ${t.owner}, the owner of the table ${t.name}`,
      );
  }
  if (problems.length > 0) throw new IsolationError(problems);
}
