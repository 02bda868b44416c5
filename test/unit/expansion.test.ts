// CONTRACT §28: a document's size once its fragments are expanded is counted in time linear in the document
// (fragments doubling per level, cycles, unknown fragments), and the in-process path refuses an oversized one
// before Apollo or graphql-jit sees it.
import { buildSchema, getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/access/actor.js';
import type { CarShare } from '../../src/carshares/car-share.js';
import { expansionOf } from '../../src/graphql/expansion.js';
import { type InProcessDeps, inProcessExecutor } from '../../src/graphql/in-process.js';
import { doubling } from '../support/documents.js';

const count = (q: string) => expansionOf(parse(q));

describe('counting selections after expansion', () => {
  it('counts every field each time a spread brings it, aliases and inline fragments included', () => {
    expect(count('{ a b { c d } }').selections).toBe(4);
    expect(count('{ x: a y: a ... on Query { a } }').selections).toBe(3);
    expect(count('{ a { ...F } b { ...F ...F } } fragment F on T { c d { e } }').selections).toBe(2 + 3 * 3);
    // Two operations: both count.
    expect(count('query A { a } query B { b c }').selections).toBe(3);
    // An unused fragment counts nothing (validation refuses it).
    expect(count('{ a } fragment U on T { b c d }').selections).toBe(1);
    expect(count(doubling(3)).selections).toBe(1 + 2 ** 4);
  });

  it('counts a 60- and a 1,000-level doubling chain at once, saturating instead of overflowing', () => {
    expect(count(doubling(12)).selections).toBe(1 + 2 ** 13);
    const started = performance.now();
    expect(count(doubling(60)).selections).toBe(Number.MAX_SAFE_INTEGER);
    expect(count(doubling(1000)).selections).toBe(Number.MAX_SAFE_INTEGER);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('returns for fragment cycles and unknown fragments (validation refuses them), without hanging', () => {
    expect(count('{ ...A } fragment A on Query { a ...B } fragment B on Query { b ...A }').selections).toBe(
      2,
    );
    expect(count('{ ...A } fragment A on Query { x ...A ...A }').selections).toBe(1);
    expect(count('{ a ...Missing b { ...Nope } }').selections).toBe(2);
    // A cycle under a doubling chain still counts linearly.
    const cyclic = `${doubling(40)} fragment G on UserAccount { ...G ...F40 }`;
    expect(count(cyclic.replace('query{me{...F40}}', 'query{me{...G}}')).selections).toBe(1 + 2 ** 41);
  });

  it('counts root __schema and __type fields through aliases and spreads, not nested ones', () => {
    expect(count('{ a: __schema { types { name } } b: __schema { queryType { name } } }').schemas).toBe(2);
    const types = count(
      '{ t: __type(name: "A") { name } ...R ... on Query { u: __type(name: "B") { name } } } fragment R on Query { v: __type(name: "C") { name } w: __type(name: "D") { name } }',
    );
    expect(types).toMatchObject({ schemas: 0, types: 4 });
    expect(count('{ ...R ...R } fragment R on Query { __schema { types { name } } }').schemas).toBe(2);
    // Fields named so below the root are not introspection roots.
    expect(count('{ x { __schema __type } }')).toMatchObject({ schemas: 0, types: 0 });
    expect(count(getIntrospectionQuery())).toMatchObject({ schemas: 1, types: 0 });
    expect(count(getIntrospectionQuery()).selections).toBeLessThan(1000);
  });
});

describe('in-process callers', () => {
  const schema = buildSchema('type UserAccount { id: ID username: String } type Query { me: UserAccount }');
  const carShare = {} as unknown as CarShare;
  const actor = { kind: 'anonymous', id: null, roles: [], scopes: [] } as unknown as Actor;

  it('refuses a document too large once expanded, as text or as a node, before compiling or Apollo', async () => {
    const touched: string[] = [];
    const run = inProcessExecutor({
      schema,
      execution: {
        runCompiled: async () => {
          touched.push('compiled');
          return { data: {} };
        },
      },
      apollo: {
        executeOperation: async () => {
          touched.push('apollo');
          return { body: { kind: 'single', singleResult: { data: {} } } };
        },
      },
      contextFor: () => ({}),
    } as unknown as InProcessDeps);
    for (const document of [doubling(30), parse(doubling(60))]) {
      const r = await run(document, {}, actor, carShare, 'r');
      expect(r.errors?.[0]?.extensions).toMatchObject({
        code: 'QueryTooComplex',
        meta: { maxSelections: 10_000 },
      });
    }
    const twoSchemas = await run(
      '{ a: __schema { __typename } b: __schema { __typename } }',
      {},
      actor,
      carShare,
      'r',
    );
    expect(twoSchemas.errors?.[0]?.extensions?.code).toBe('QueryTooComplex');
    expect(touched).toEqual([]);
    // A small document goes on as before.
    await run(parse('{ me { id } }'), {}, actor, carShare, 'r');
    await run('{ me { id } }', {}, actor, carShare, 'r');
    expect(touched).toEqual(['compiled', 'apollo']);
  });
});
