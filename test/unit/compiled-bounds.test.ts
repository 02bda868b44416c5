// The document caches (compiled documents, Apollo's store of validated ones) stay bounded whatever a client sends: by count and by the selections they hold,
// for documents kept by text (GraphQL clients) and by node (the REST facade) alike; a document too large to compile
// cheaply is left to graphql-js.
import { buildSchema, parse } from 'graphql';
import { expect, it } from 'vitest';
import { CompiledDocuments, MAX_COMPILED_SELECTIONS } from '../../src/graphql/compiled.js';
import { documentStore } from '../../src/graphql/document-store.js';

const schema = buildSchema('type Car { id: ID make: String } type Query { car: Car cars: [Car] }');
const aliased = (salt: number, n = 1) =>
  `{ car { s${salt}: id ${Array.from({ length: n }, (_, i) => `a${i}: make`).join(' ')} } }`;

it('keeps at most `max` documents of each kind, rotating documents as a client or the facade can', () => {
  const compiled = new CompiledDocuments(schema, 20, 1_000_000);
  for (let i = 0; i < 200; i += 1) {
    const text = aliased(i);
    expect(compiled.get(parse(text), text)).toBeDefined();
    expect(compiled.get(parse(text))).toBeDefined();
  }
  expect(compiled.sizes).toEqual({ byNode: 20, byText: 20 });
  // The most recent are still there: the same node is not compiled again.
  const node = parse(aliased(1000));
  const first = compiled.get(node);
  expect(compiled.get(node)).toBe(first);
});

it('keeps documents within a budget of selections, the newest always', () => {
  const compiled = new CompiledDocuments(schema, 500, 1_000);
  for (let i = 0; i < 50; i += 1) {
    const text = aliased(i, 300);
    expect(compiled.get(parse(text), text)).toBeDefined();
  }
  // 302 selections each: three fit in 1,000.
  expect(compiled.sizes.byText).toBe(3);
});

it('leaves a document over the compiled size to graphql-js', () => {
  const compiled = new CompiledDocuments(schema);
  const big = aliased(0, MAX_COMPILED_SELECTIONS);
  expect(compiled.get(parse(big), big)).toBeUndefined();
  const fits = aliased(0, MAX_COMPILED_SELECTIONS - 2);
  expect(compiled.get(parse(fits), fits)).toBeDefined();
});

it("keeps Apollo's validated documents within 128 KiB of sources, the most recent first", async () => {
  const store = documentStore();
  // Over 2 KiB each (trailing blanks count, as they do in a request): fewer than 64 fit.
  const text = (i: number) => `${aliased(i, 100)}${' '.repeat(2048)}`;
  for (let i = 0; i < 1000; i += 1) await store.set(`k${i}`, parse(text(i)));
  let held = 0;
  for (let i = 0; i < 1000; i += 1) if (await store.get(`k${i}`)) held += 1;
  expect(held).toBeGreaterThan(30);
  expect(held).toBeLessThanOrEqual(64);
  expect(await store.get('k999')).toBeDefined();
  expect(await store.get('k0')).toBeUndefined();
  // A document over a quarter of the budget is not kept.
  await store.set('big', parse(`{ car { id } }${' '.repeat(40 * 1024)}`));
  expect(await store.get('big')).toBeUndefined();
});
