// In-process GraphQL against the real database: the same Apollo server and schema the HTTPS listener uses.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import type { Actor } from '../../src/access/actor.js';
import { noTokens } from '../../src/access/authenticate.js';
import { type App, createApp } from '../../src/app.js';
import type { CarShare } from '../../src/carshares/car-share.js';
import { openCarShareRegistry } from '../../src/carshares/registry.js';
import { type Orm, openOrm } from '../../src/db/orm.js';
import { createContext } from '../../src/graphql/context.js';
import type { DomainModule } from '../../src/graphql/module.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { entities, modules } from '../../src/modules.js';
import { ManualClock } from '../../src/shared/clock.js';
import { isTransactionControl, scoped } from './scope.js';

export interface GqlError {
  message: string;
  path?: readonly (string | number)[];
  extensions?: {
    code?: string;
    field?: string;
    errors?: { code: string; field: string; message: string }[];
    meta?: Record<string, unknown>;
  };
}
export interface GqlResult<T = Record<string, unknown>> {
  data?: T | null;
  errors?: GqlError[];
}

export interface Harness {
  orm: Orm;
  app: App;
  /** The default car share: the one every run addresses. */
  carShare: CarShare;
  clock: ManualClock;
  /** SQL statements run since the last `sql.length = 0`. */
  sql: string[];
  /** Log lines written by the service, parsed. */
  logs: Record<string, unknown>[];
  run<T = Record<string, unknown>>(
    actor: Actor,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<GqlResult<T>>;
  /** Runs and fails the test on any error; returns data. */
  ok<T = Record<string, unknown>>(
    actor: Actor,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<T>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Where the clock starts (and returns to on `reset`). */
  now?: string;
  /** Replaces the service's module list (e.g. to wire a port the way a later subdomain will). */
  modules?: DomainModule[];
}

export async function createHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const sql: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const orm = await openOrm(inject('databaseUrl'), entities as never, {
    pool: 5,
    // The statements a request makes, not its transaction's (its car share's scope, src/db/scope.ts).
    onQuery: (s) => {
      if (!isTransactionControl(s)) sql.push(s);
    },
  });
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  });
  const log = pino({ level: 'info' }, sink);
  const start = opts.now ?? '2026-07-01T10:00:00.000Z';
  const clock = new ManualClock(start);
  const carShares = await openCarShareRegistry(orm, 'https://localhost:8443');
  const app = await createApp({
    config: { TRUST_PROXY: false, PUBLIC_URL: 'https://localhost:8443' },
    orm,
    carShares,
    schema: buildSchema(opts.modules ?? modules),
    log,
    clock,
    authenticator: noTokens,
  });

  const run = async <T>(
    actor: Actor,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<GqlResult<T>> => {
    const requestId = randomUUID();
    const contextValue = createContext({
      em: scoped(orm),
      carShare: carShares.default,
      actor,
      clock,
      requestId,
      log: log.child({ requestId }),
    });
    const res = await app.apollo.executeOperation(
      { query, ...(variables ? { variables } : {}) },
      { contextValue },
    );
    if (res.body.kind !== 'single') throw new Error('expected a single result');
    return res.body.singleResult as GqlResult<T>;
  };

  return {
    orm,
    app,
    carShare: carShares.default,
    clock,
    sql,
    logs,
    run,
    async ok<T>(actor: Actor, query: string, variables?: Record<string, unknown>) {
      const r = await run<T>(actor, query, variables);
      if (r.errors?.length) {
        const logged = logs
          .filter((l) => l.level === 50)
          .map((l) => (l.err as { message?: string } | undefined)?.message);
        throw new Error(
          `GraphQL errors: ${JSON.stringify(r.errors, null, 2)}${logged.length ? `\nlogged: ${logged.join('; ')}` : ''}`,
        );
      }
      return r.data as T;
    },
    async reset() {
      const rows = await orm.em
        .fork()
        .getConnection()
        .execute<{ tablename: string }[]>(
          // Car shares stay: the default one is made by the migration, as on a real deployment.
          `select tablename from pg_tables where schemaname = 'public' and tablename not like 'mikro_orm_%'
             and tablename <> 'car_share'`,
        );
      // TRUNCATE locks every table in turn: background work still finishing (a service of the previous file
      // closing, a relay's last poll) can hold one of them and want another, and PostgreSQL ends one side with a
      // deadlock. Emptying the database is the test's set-up, not what it tests: it tries again.
      for (let attempt = 1; rows.length > 0; attempt += 1) {
        try {
          await orm.em
            .fork()
            .getConnection()
            .execute(`truncate ${rows.map((r) => `"${r.tablename}"`).join(', ')} cascade`);
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== '40P01' || attempt >= 5) throw e;
          await new Promise((r) => setTimeout(r, 100 * attempt));
        }
      }
      // The default car share, which the migrations made, stays; any other a test made goes.
      await orm.em.fork().getConnection().execute('delete from "car_share" where not "is_default"');
      sql.length = 0;
      logs.length = 0;
      clock.set(start);
    },
    async close() {
      await app.stop();
      await orm.close(true);
    },
  };
}

/**
 * The harness of a test file (or of a `describe`): created on an emptied database before the first test, emptied
 * again before each test (unless `resetEach` is false: the tests then share what a `beforeAll` made), closed
 * after the last. Call it at the top of the file, before hooks that use it, so they run after it is ready and
 * before it closes. The returned object stands for the harness and reaches it on each use.
 */
export function useHarness(opts: HarnessOptions & { resetEach?: boolean } = {}): Harness {
  let current: Harness | undefined;
  const the = (): Harness => {
    if (!current) throw new Error('the harness exists from beforeAll to afterAll only');
    return current;
  };
  beforeAll(async () => {
    current = await createHarness(opts);
    await current.reset();
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  if (opts.resetEach ?? true) beforeEach(() => the().reset());
  return {
    get orm() {
      return the().orm;
    },
    get app() {
      return the().app;
    },
    get carShare() {
      return the().carShare;
    },
    get clock() {
      return the().clock;
    },
    get sql() {
      return the().sql;
    },
    get logs() {
      return the().logs;
    },
    run: (actor, query, variables) => the().run(actor, query, variables),
    ok: (actor, query, variables) => the().ok(actor, query, variables),
    reset: () => the().reset(),
    close: () => the().close(),
  };
}

/** The first error's code and field, for compact assertions. */
export function errorOf(r: GqlResult): {
  code: string | undefined;
  field: string | undefined;
  message: string;
} {
  const e = r.errors?.[0];
  if (!e) throw new Error(`expected an error, got data ${JSON.stringify(r.data)}`);
  return { code: e.extensions?.code, field: e.extensions?.field, message: e.message };
}
