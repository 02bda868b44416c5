// Unexpected failures are masked: a generic message with the request id, the details only in the log.

import { randomUUID } from 'node:crypto';
import { parse } from 'graphql';
import { pino } from 'pino';
import { describe, expect, inject, it } from 'vitest';
import type { Actor } from '../../src/access/actor.js';
import { type Orm, openOrm } from '../../src/db/orm.js';
import { createContext } from '../../src/graphql/context.js';
import { createExecution } from '../../src/graphql/execution.js';
import { createExecutionGate, gateSizes } from '../../src/graphql/execution-gate.js';
import { inProcessExecutor } from '../../src/graphql/in-process.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { entities, modules } from '../../src/modules.js';
import { asOps } from '../support/actors.js';
import { useHarness } from '../support/harness.js';
import { recordingLog } from '../support/log.js';
import { scoped } from '../support/scope.js';

const h = useHarness({ resetEach: false });

describe('error masking', () => {
  it('answers an unexpected failure with InternalServerError, a generic message and the request id; logs the cause', async () => {
    // A database that cannot be reached is the kind of failure no caller should see the inside of.
    const missing = new URL(inject('databaseUrl'));
    missing.pathname = '/carshare_no_such_database';
    const gone = await openOrm(missing.toString(), entities as never, { pool: 1 });
    const { log, lines } = recordingLog();
    const contextValue = createContext({
      em: scoped(gone),
      carShare: h.carShare,
      actor: asOps(),
      clock: h.clock,
      requestId: 'req-masked-1',
      log: log.child({ requestId: 'req-masked-1' }),
    });
    const res = await h.app.apollo.executeOperation(
      { query: '{ userAccounts { total } }' },
      { contextValue },
    );
    if (res.body.kind !== 'single') throw new Error('single result expected');
    const err = res.body.singleResult.errors?.[0];
    expect(err?.message).toBe('An unexpected error occurred. Quote the request id to support.');
    expect(err?.extensions).toEqual({
      code: 'InternalServerError',
      errors: [],
      meta: { requestId: 'req-masked-1' },
    });
    const text = JSON.stringify(res.body.singleResult);
    expect(text).not.toMatch(/stack|at \w+ \(|\.ts:\d+|pool|connection/i);
    const logged = lines.find((l) => l.msg === 'unexpected error in GraphQL');
    expect(logged?.requestId).toBe('req-masked-1');
    expect(logged?.err?.stack).toBeTruthy();
    await gone.close(true);
  });

  it('keeps domain errors as they are: code, field and message', async () => {
    const r = await h.run(asOps(), '{ userAccounts(limit: 0) { total } }');
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'OutOfRange', field: 'limit' });
  });

  it('names the argument when GraphQL itself refuses a value of the wrong type', async () => {
    const r = await h.run(asOps(), 'query($l: Int) { userAccounts(limit: $l) { total } }', { l: 'ten' });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'InvalidValue', field: 'l' });
    const d = await h.run(asOps(), 'query($id: UUID!) { userAccount(id: $id) { id } }', { id: 'x' });
    expect(d.errors?.[0]?.extensions).toMatchObject({ code: 'InvalidFormat', field: 'id' });
  });

  it('names the argument and keeps the path when a literal argument is malformed', async () => {
    const r = await h.run(asOps(), '{ mine: car(id: "nope") { id } }');
    const e = r.errors?.[0];
    expect(e?.message).toBe('Id must be a UUID (8-4-4-4-12 hexadecimal digits)');
    expect(e?.path).toEqual(['mine']);
    expect(e?.extensions).toEqual({
      code: 'InvalidFormat',
      field: 'id',
      errors: [
        { code: 'InvalidFormat', field: 'id', message: 'Id must be a UUID (8-4-4-4-12 hexadecimal digits)' },
      ],
    });
    const v = await h.run(asOps(), 'query($id: UUID!) { car(id: $id) { id } }', { id: 'nope' });
    expect(v.errors?.[0]?.message).toBe('Id must be a UUID (8-4-4-4-12 hexadecimal digits)');
  });

  it('spells extensions.meta keys in camelCase, like every other GraphQL name, and names fields in PascalCase', async () => {
    const r = await h.run(asOps(), '{ cars(limit: 0) { total } }');
    expect(r.errors?.[0]?.message).toBe('Limit must be between 1 and 1000');
    expect(r.errors?.[0]?.extensions).toMatchObject({
      code: 'OutOfRange',
      field: 'limit',
      errors: [{ code: 'OutOfRange', field: 'limit', meta: { min: 1, max: 1000 } }],
    });
  });
});

describe('a read run in process (the REST facade, the dashboard)', () => {
  const schema = buildSchema(modules);
  /** The in-process executor, with its context given and Apollo's answer to the same read to compare. */
  const both = async (orm: Orm, query: string, log = pino({ level: 'silent' })) => {
    const contextFor = (actor: Actor, requestId: string) =>
      createContext({
        em: scoped(orm),
        carShare: h.carShare,
        actor,
        clock: h.clock,
        requestId,
        log: log.child({ requestId }),
      });
    const execute = inProcessExecutor({
      schema,
      execution: createExecution({
        schema,
        gate: createExecutionGate(gateSizes(50_000)),
        metrics: createMetrics(),
      }),
      apollo: h.app.apollo,
      contextFor,
    });
    h.sql.length = 0;
    const inProcess = await execute(parse(query), {}, asOps(), h.carShare, 'req-in-process');
    const statements = h.sql.length;
    const res = await h.app.apollo.executeOperation(
      { query },
      { contextValue: contextFor(asOps(), 'req-in-process') },
    );
    if (res.body.kind !== 'single') throw new Error('single result expected');
    return { inProcess, statements, apollo: res.body.singleResult };
  };

  it('that fails runs once, its errors shaped as Apollo shapes them', async () => {
    const { inProcess, statements, apollo } = await both(h.orm, `{ car(id: "${randomUUID()}") { id } }`);
    expect(inProcess.errors?.[0]?.extensions?.code).toBe('NotFound');
    expect(inProcess).toEqual(apollo);
    // Before, the error was shaped by running the read again through Apollo: two scans.
    expect(statements).toBe(1);
  });

  it('that fails unexpectedly is masked with the request id and logged, as through Apollo', async () => {
    const missing = new URL(inject('databaseUrl'));
    missing.pathname = '/carshare_no_such_database';
    const gone = await openOrm(missing.toString(), entities as never, { pool: 1 });
    const { log, lines } = recordingLog();
    const { inProcess, apollo } = await both(gone, '{ userAccounts { total } }', log);
    expect(inProcess.errors?.[0]?.extensions).toEqual({
      code: 'InternalServerError',
      errors: [],
      meta: { requestId: 'req-in-process' },
    });
    expect(inProcess).toEqual(apollo);
    expect(lines.filter((l) => l.msg === 'unexpected error in GraphQL')).toHaveLength(2);
    await gone.close(true);
  });
});
