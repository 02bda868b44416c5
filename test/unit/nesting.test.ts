// The bound on a document's nesting, read from its text before it is parsed (src/graphql/nesting.ts).
import { getIntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING, nestingOf } from '../../src/graphql/nesting.js';

describe('nestingOf', () => {
  it('counts selection sets, arguments and list or object values', () => {
    expect(nestingOf('{ me { id } }')).toBe(2);
    expect(nestingOf('query($a: [ID!]) { cars(filter: { ids: [1, [2]] }) { id } }')).toBe(5);
    expect(nestingOf('')).toBe(0);
  });

  it('skips brackets inside strings, block strings and comments', () => {
    expect(nestingOf('{ a(x: "{{{{[[[(((") }')).toBe(2);
    expect(nestingOf('{ a(x: "\\"{{{{") }')).toBe(2);
    expect(nestingOf('{ a(x: """ {{{{ \\""" {{{{ """) }')).toBe(2);
    expect(nestingOf('# {{{{{{\n{ a }')).toBe(1);
  });

  it('reads unbalanced text without going below zero', () => {
    expect(nestingOf('}}}} { a }')).toBe(1);
    expect(nestingOf('{{{{')).toBe(4);
  });

  it("leaves GraphiQL's introspection query well within the bound, and refuses a thousand levels", () => {
    expect(nestingOf(getIntrospectionQuery())).toBeLessThan(MAX_NESTING / 4);
    expect(nestingOf('{ a '.repeat(1000))).toBeGreaterThan(MAX_NESTING);
  });

  it('is linear: 64 KiB of open brackets or of quotes is read at once', () => {
    for (const text of ['{'.repeat(65_536), '"'.repeat(65_536), '"""'.repeat(21_000), '#'.repeat(65_536)]) {
      const started = performance.now();
      nestingOf(text);
      expect(performance.now() - started).toBeLessThan(200);
    }
  });
});
