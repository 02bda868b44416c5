// Property-based fuzzing of every REST operation of /api/openapi.json (CONTRACT §13): hostile values per
// parameter type, with user, ops and client tokens, against the running service. Whatever is sent, the answer
// is never a 5xx, and every 4xx carries a ResponseStatus. A fixed seed and a few hundred cases in `npm test`;
// `npm run fuzz` runs many more with a random seed (FUZZ_SEED and FUZZ_RUNS choose them).
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiScopes } from '../../src/access/actor.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';
import { bookingIn, world } from '../factories/bookings.js';
import { type RestEnv, startRest } from '../rest-facade/support.js';
import { asClient, asOps } from '../support/actors.js';
import { graphqlCases, oauthCases } from './fuzz.graphql.js';
import { asText, bodyFor, type Json, type Operation, operationsOf, valueFor } from './fuzz.support.js';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261126;
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 300;

let env: RestEnv;
let doc: Json;
let operations: Operation[];
let tokens: Record<string, string | undefined>;
/** Ids of real resources, so some requests reach deep into their operations. */
let known: string[];
beforeAll(async () => {
  env = await startRest();
  await env.h.reset();
  doc = (await env.call('GET', '/api/openapi.json')).json;
  operations = operationsOf(doc);
  const w = await world(env.h);
  const booking = await bookingIn(env.h, w, 'Approved');
  known = [w.carId, w.owner.id, w.borrower.id, booking.id as string];
  tokens = {
    owner: env.tokenFor(w.owner.actor),
    borrower: env.tokenFor(w.borrower.actor),
    ops: env.tokenFor(asOps()),
    client: env.tokenFor(asClient(apiScopes)),
    none: undefined,
    bad: 'not-a-token',
  };
});
afterAll(async () => env?.close());

interface Case {
  op: Operation;
  path: string;
  query: [string, string][];
  body: Record<string, unknown> | undefined;
  form: boolean;
  token: string;
}

function caseFor(op: Operation): fc.Arbitrary<Case> {
  const pathValue = fc.oneof(
    fc.constantFrom(...known),
    fc.uuid(),
    fc.constant(randomBytes(16).toString('hex')),
    fc.constantFrom('a%00b', '..', '%2e%2e%2f', 'x'.repeat(300), 'UserAccount', 'Car', '-1'),
  );
  const query = op.query.length
    ? fc
        .subarray(op.query, { maxLength: Math.min(6, op.query.length) })
        .chain((qs) =>
          fc
            .tuple(...qs.map((q) => valueFor(doc, q.schema)))
            .map((vs) => qs.map((q, i) => [q.name, asText(vs[i])] as [string, string])),
        )
    : fc.constant([] as [string, string][]);
  return fc.record({
    op: fc.constant(op),
    path: fc
      .tuple(...op.pathParams.map(() => pathValue))
      .map((vs) => op.pathParams.reduce((p, name, i) => p.replace(`{${name}}`, encodeURI(vs[i]!)), op.path)),
    query,
    body:
      op.body && op.method !== 'GET' && op.method !== 'DELETE'
        ? bodyFor(doc, op.body)
        : fc.constant(undefined),
    form: fc.boolean(),
    token: fc.constantFrom('owner', 'borrower', 'ops', 'client', 'none', 'bad'),
  });
}

it(`answers no 5xx and a ResponseStatus on every 4xx for hostile requests (seed ${SEED}, ${RUNS} cases)`, async () => {
  console.log(`fuzz: seed=${SEED} cases=${RUNS} operations=${operations.length}`);
  expect(operations.length).toBeGreaterThan(40);
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...operations).chain(caseFor), async (c) => {
      const qs = new URLSearchParams(c.query).toString();
      const url = `${c.path}${qs ? `?${qs}` : ''}`;
      const token = tokens[c.token];
      const body =
        c.body === undefined
          ? undefined
          : c.form
            ? new URLSearchParams(
                Object.entries(c.body).map(([k, v]): [string, string] => [k, asText(v)]),
              ).toString()
            : JSON.stringify(c.body);
      const r = await env.call(c.op.method, url, {
        ...(token ? { token } : {}),
        ...(body === undefined ? {} : { body }),
        headers:
          body === undefined
            ? {}
            : { 'Content-Type': c.form ? 'application/x-www-form-urlencoded' : 'application/json' },
      });
      sent += 1;
      const what = `${c.op.method} ${url.slice(0, 300)} as ${c.token} ${body?.slice(0, 300) ?? ''} → ${r.status} ${r.text.slice(0, 300)}`;
      expect(r.status, what).toBeLessThan(500);
      if (r.status >= 400) expect(typeof r.json?.ResponseStatus?.ErrorCode, what).toBe('string');
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  console.log(`fuzz: ${sent} requests sent, no 5xx`);
  expect(sent).toBeGreaterThanOrEqual(RUNS);
}, 600_000);

it(`GraphQL: hostile variables for every root field never give a 5xx or an internal error (seed ${SEED})`, async () => {
  const runs = Math.ceil(RUNS / 2);
  console.log(`fuzz graphql: seed=${SEED} cases=${runs}`);
  await fc.assert(
    fc.asyncProperty(
      graphqlCases(buildSchema(modules)),
      fc.constantFrom('owner', 'borrower', 'ops', 'client', 'none'),
      async (c, who) => {
        const token = tokens[who];
        const r = await env.call('POST', '/graphql', { ...(token ? { token } : {}), body: c });
        const what = `${c.query} ${JSON.stringify(c.variables).slice(0, 300)} as ${who} → ${r.status} ${r.text.slice(0, 300)}`;
        expect(r.status, what).toBeLessThan(500);
        for (const e of r.json?.errors ?? [])
          expect(e.extensions?.code, what).not.toBe('InternalServerError');
      },
    ),
    { seed: SEED, numRuns: runs, endOnFailure: true },
  );
}, 600_000);

it(`OAuth: hostile forms at the token endpoints get an OAuth error, never a 5xx (seed ${SEED})`, async () => {
  const runs = Math.ceil(RUNS / 4);
  console.log(`fuzz oauth: seed=${SEED} cases=${runs}`);
  await fc.assert(
    fc.asyncProperty(oauthCases, async (c) => {
      const r = await env.call('POST', c.path, {
        body: new URLSearchParams(c.params).toString(),
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          ...(c.basic ? { Authorization: c.basic } : {}),
        },
      });
      const what = `${c.path} ${JSON.stringify(c.params).slice(0, 300)} → ${r.status} ${r.text.slice(0, 300)}`;
      expect(r.status, what).toBeLessThan(500);
      if (r.status >= 400) expect(typeof r.json?.error, what).toBe('string');
    }),
    { seed: SEED, numRuns: runs, endOnFailure: true },
  );
}, 600_000);
