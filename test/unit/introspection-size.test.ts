// Introspection answers are counted against the schema before anything runs (CONTRACT §13 memory, §28): exactly
// for what a document asks, with work bounded by the budget whatever the aliases, nesting or fragments.
import { buildSchema, execute, getIntrospectionQuery, parse } from 'graphql';
import { expect, it } from 'vitest';
import { introspectionSizeOf } from '../../src/graphql/introspection.js';

const schema = buildSchema(`
  type Car { id: ID! make: String owner: Person }
  type Person { id: ID! name: String cars(limit: Int): [Car!]! }
  enum Sort { MAKE YEAR }
  input CarFilter { make: String sort: Sort }
  type Query { car(id: ID!): Car cars(filter: CarFilter): [Car!]! person: Person }
`);
const size = (q: string) => introspectionSizeOf(schema, parse(q));

it('counts the values an introspection part answers, and nothing else', () => {
  expect(size('{ car(id: "1") { id } }').size).toBe(0);
  const { size: types, max } = size('{ __schema { types { name } } }');
  // __schema, types, then a list item and its name per type.
  const named = Object.keys(schema.getTypeMap()).length;
  expect(types).toBe(2 + 2 * named);
  // GraphiQL's query passes with room; answering it really is that size.
  const graphiql = size(getIntrospectionQuery());
  expect(graphiql.size).toBeLessThanOrEqual(max / 4);
  expect(
    JSON.stringify(execute({ schema, document: parse(getIntrospectionQuery()) })).length,
  ).toBeGreaterThan(graphiql.size);
  // A named type: its fields; an unknown name answers null.
  expect(size('{ __type(name: "Car") { fields { name } } }').size).toBe(2 + 3 * 2);
  expect(size('{ __type(name: "Nope") { fields { name } } }').size).toBe(1);
});

it('refuses aliases that multiply the answer, at once, fragments and cycles included', () => {
  const aliases = (n: number) =>
    `{ __schema { ${Array.from({ length: n }, (_, i) => `a${i}: types { fields { name args { name } } }`).join(' ')} } }`;
  expect(size(aliases(2)).size).toBeLessThan(size(aliases(2)).max);
  expect(size(aliases(2000)).size).toBe(Number.POSITIVE_INFINITY);
  const spread = `{ __schema { ...S } } fragment S on __Schema { ${Array.from({ length: 500 }, (_, i) => `t${i}: types { ...T }`).join(' ')} } fragment T on __Type { name fields { name } ...T }`;
  const started = performance.now();
  expect(size(spread).size).toBe(Number.POSITIVE_INFINITY);
  // Bounded work: a generous bound that counting every value asked for would blow.
  expect(performance.now() - started).toBeLessThan(5000);
});
