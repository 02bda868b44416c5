// The facade's plans (a document and selection per request shape) are bounded over the whole facade: a client
// rotating `filter` combinations across many routes holds no more than the bound, and the recently used stay.
import { describe, expect, it } from 'vitest';
import { DocumentCache } from '../../rest-facade/document.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';

describe('DocumentCache.plan', () => {
  it('keeps at most `max` shapes over every owner, least recently used leaving first', () => {
    const documents = new DocumentCache(buildSchema(modules), 50);
    const routes = Array.from({ length: 20 }, () => ({}));
    let made = 0;
    const make = () => {
      made += 1;
      return { made };
    };
    const kept = documents.plan(routes[0]!, 'kept', make);
    for (let i = 0; i < 1_000; i += 1) {
      documents.plan(routes[i % 20]!, `filter=${i}`, make);
      // Used now and then, so it is never the least recently used.
      if (i % 10 === 0) expect(documents.plan(routes[0]!, 'kept', make)).toBe(kept);
    }
    expect(documents.plans).toBe(50);
    expect(made).toBe(1_001);
    // A shape evicted long ago is made again; the one kept in use is not.
    expect(documents.plan(routes[1]!, 'filter=1', make)).toEqual({ made: 1_002 });
    expect(documents.plan(routes[0]!, 'kept', make)).toBe(kept);
  });
});
