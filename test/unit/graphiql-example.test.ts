// GraphiQL's first-visit query is a valid query of this schema (a newcomer's first Ctrl-Enter must not meet a
// validation error), and its Headers template is JSON with comments that parses to an empty object.
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';
import { EXAMPLE_QUERY, HEADERS_TEMPLATE } from '../../src/web/graphiql.js';

describe("GraphiQL's first visit", () => {
  it('opens on a query that validates against the schema', () => {
    const schema = buildSchema(modules);
    expect(validate(schema, parse(EXAMPLE_QUERY))).toEqual([]);
  });

  it('shows where the token goes, as comments that leave no header set', () => {
    expect(HEADERS_TEMPLATE).toContain('"Authorization": "Bearer ACCESS_TOKEN"');
    const uncommented = HEADERS_TEMPLATE.split('\n')
      .filter((l) => !l.trim().startsWith('//'))
      .join('\n');
    expect(JSON.parse(uncommented)).toEqual({});
  });
});
