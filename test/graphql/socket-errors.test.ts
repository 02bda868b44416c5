// graphql-ws answers as /graphql does: the same documents sent both ways get the same errors (a document that does
// not validate, an argument our scalars refuse, a domain error, a variable of the wrong type), an unexpected failure
// is masked with the request id and logged, and its operations are counted in `graphql_operations_total`.
import { parse } from 'graphql';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { openOrm } from '../../src/db/orm.js';
import { createContext } from '../../src/graphql/context.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { entities, modules } from '../../src/modules.js';
import { useRest } from '../rest-facade/support.js';
import { asOps } from '../support/actors.js';
import { recordingLog } from '../support/log.js';
import { parseMetrics } from '../support/metrics.js';
import { scoped } from '../support/scope.js';
import { wsClient } from '../support/ws.js';

const env = useRest();
let token: string;
let agent: Agent;

beforeAll(() => {
  token = env.tokenFor(asOps());
  agent = new Agent({ connect: { ca: env.service.cert } });
});
afterAll(() => agent.close());

type Answer = { data?: unknown; errors?: unknown };

/** One operation over graphql-ws: its `next` payload, or the errors of its `error` message. */
function overSocket(query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const client = wsClient({ origin: env.origin, cert: env.service.cert }, token);
  onTestFinished(() => client.dispose());
  return new Promise((resolve, reject) => {
    let result: Answer = {};
    client.subscribe(
      { query, ...(variables ? { variables } : {}) },
      {
        next: (r) => {
          result = r as Answer;
        },
        error: (e) => (Array.isArray(e) ? resolve({ errors: e }) : reject(e)),
        complete: () => resolve(result),
      },
    );
  });
}

async function overHttp(query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const r = await env.call('POST', '/graphql', {
    token,
    body: { query, ...(variables ? { variables } : {}) },
  });
  return { ...(r.json.data === undefined ? {} : { data: r.json.data }), errors: r.json.errors };
}

describe('graphql-ws errors are /graphql errors', () => {
  it.each([
    [
      'a document that does not validate',
      '{ cars { nodes { noSuchField } } }',
      undefined,
      'GRAPHQL_VALIDATION_FAILED',
    ],
    ['an argument our scalars refuse', '{ mine: car(id: "nope") { id } }', undefined, 'InvalidFormat'],
    ['a domain error', '{ userAccounts(limit: 0) { total } }', undefined, 'OutOfRange'],
    [
      'a variable of the wrong type',
      'query($l: Int) { userAccounts(limit: $l) { total } }',
      { l: 'ten' },
      'InvalidValue',
    ],
  ])('%s', async (_what, query, variables, code) => {
    const http = await overHttp(query, variables);
    const socket = await overSocket(query, variables);
    expect((http.errors as { extensions: { code: string } }[])[0]?.extensions.code).toBe(code);
    expect(socket).toEqual(http);
  });

  it('counts its operations in graphql_operations_total, by name and outcome', async () => {
    const count = async (outcome: string) => {
      const text = await (await fetch(`${env.origin}/metrics`, { dispatcher: agent })).text();
      const found = parseMetrics(text).find(
        (s) =>
          s.name === 'graphql_operations_total' &&
          s.labels.name === 'SocketCount' &&
          s.labels.type === 'query' &&
          s.labels.outcome === outcome,
      );
      return found?.value ?? 0;
    };
    const before = { success: await count('success'), error: await count('error') };
    expect((await overSocket('query SocketCount { cars(limit: 1) { total } }')).errors).toBeUndefined();
    expect((await overSocket('query SocketCount { userAccounts(limit: 0) { total } }')).errors).toBeTruthy();
    expect(await count('success')).toBe(before.success + 1);
    expect(await count('error')).toBe(before.error + 1);
  });
});

it('masks an unexpected failure with the request id and logs its cause, as /graphql does', async () => {
  // A database that cannot be reached is the kind of failure no caller should see the inside of.
  const missing = new URL(inject('databaseUrl'));
  missing.pathname = '/carshare_no_such_database';
  const gone = await openOrm(missing.toString(), entities as never, { pool: 1 });
  onTestFinished(() => gone.close(true));
  const { log, lines } = recordingLog();
  const h = env.h;
  const contextValue = createContext({
    em: scoped(gone),
    carShare: h.carShare,
    actor: asOps(),
    clock: h.clock,
    requestId: 'req-socket-masked',
    log: log.child({ requestId: 'req-socket-masked' }),
  });
  const args = { schema: buildSchema(modules), document: parse('{ userAccounts { total } }'), contextValue };
  const result = await h.app.socket.execute(args);
  const shaped = h.app.socket.onNext(args, result);
  expect(shaped?.errors).toEqual([
    {
      message: 'An unexpected error occurred. Quote the request id to support.',
      path: ['userAccounts'],
      extensions: { code: 'InternalServerError', errors: [], meta: { requestId: 'req-socket-masked' } },
    },
  ]);
  expect(JSON.stringify(shaped)).not.toMatch(/stack|at \w+ \(|\.ts:\d+|pool|connection|database/i);
  const logged = lines.find((l) => l.msg === 'unexpected error in GraphQL');
  expect(logged?.requestId).toBe('req-socket-masked');
  expect(logged?.err?.stack).toBeTruthy();
});
