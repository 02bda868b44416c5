// Hostile GraphQL operations and OAuth requests for the fuzz test (CONTRACT §13): every root field of the schema
// with variables of its argument types filled with hostile values, and the token endpoints with hostile forms.
import fc from 'fast-check';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
} from 'graphql';

const hostileText = fc.constantFrom<unknown>(
  'a\u0000b',
  '',
  'x'.repeat(5000),
  '0000-01-01T00:00:00Z',
  '2027-02-30T10:00:00Z',
  '+010000-01-01T00:00:00Z',
  'not-a-uuid',
  '00000000-0000-4000-8000-000000000000',
);
const hostileNumber = fc.constantFrom<unknown>(2 ** 31, -(2 ** 31) - 1, 1e308, -1, 0, 0.5, 1000, 1001);
const wrongType = fc.constantFrom<unknown>(null, true, [], {}, 'text', 12);

function hostileOf(type: GraphQLInputType, depth: number): fc.Arbitrary<unknown> {
  const t = getNullableType(type);
  if (isListType(t)) return fc.oneof(fc.array(hostileOf(t.ofType, depth + 1), { maxLength: 3 }), wrongType);
  if (isEnumType(t))
    return fc.oneof(fc.constantFrom(...t.getValues().map((v) => v.name)), hostileText, wrongType);
  if (isInputObjectType(t)) {
    if (depth > 3) return wrongType;
    const fields = Object.values(t.getFields());
    return fc.oneof(
      fc
        .subarray(fields)
        .chain((chosen) =>
          fc
            .tuple(...chosen.map((f) => hostileOf(f.type, depth + 1)))
            .map((vs) => Object.fromEntries(chosen.map((f, i) => [f.name, vs[i]]))),
        ),
      wrongType,
    );
  }
  const name = (t as { name: string }).name;
  if (name === 'Int' || name === 'Float') return fc.oneof(hostileNumber, wrongType, fc.integer());
  return fc.oneof(hostileText, wrongType, fc.string({ maxLength: 20 }));
}

export interface GraphQLCase {
  query: string;
  variables: Record<string, unknown>;
}

/** One operation per root field: every argument a variable of its declared type, given a hostile value. */
export function graphqlCases(schema: GraphQLSchema): fc.Arbitrary<GraphQLCase> {
  const roots: [string, GraphQLField<unknown, unknown>][] = [
    ...Object.values(schema.getQueryType()?.getFields() ?? {}).map((f) => ['query', f] as [string, typeof f]),
    ...Object.values(schema.getMutationType()?.getFields() ?? {}).map(
      (f) => ['mutation', f] as [string, typeof f],
    ),
  ];
  return fc.constantFrom(...roots).chain(([kind, field]) =>
    fc
      .tuple(
        ...field.args.map((a: GraphQLArgument) =>
          isNonNullType(a.type) ? hostileOf(a.type, 0) : fc.option(hostileOf(a.type, 0), { nil: undefined }),
        ),
      )
      .map((values) => {
        const defs = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
        const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
        const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
        const variables = Object.fromEntries(
          field.args.flatMap((a, i) => (values[i] === undefined ? [] : [[a.name, values[i]]])),
        );
        return {
          query: `${kind}${defs ? `(${defs})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`,
          variables,
        };
      }),
  );
}

/** Hostile forms for the token, introspection and revocation endpoints. */
export const oauthCases = fc.record({
  path: fc.constantFrom('/api/oauth/token', '/api/oauth/token/introspection', '/api/oauth/token/revocation'),
  params: fc.dictionary(
    fc.constantFrom(
      'grant_type',
      'scope',
      'client_id',
      'client_secret',
      'token',
      'refresh_token',
      'code',
      'resource',
    ),
    fc.oneof(
      fc.constantFrom(
        'client_credentials',
        'refresh_token',
        'authorization_code',
        'password',
        'a\u0000b',
        '',
        'x'.repeat(3000),
      ),
      fc.string({ maxLength: 30 }),
    ),
  ),
  basic: fc.option(
    fc.constantFrom('Basic Og==', 'Basic !!!', `Basic ${Buffer.from('a\u0000:b').toString('base64')}`),
    {
      nil: undefined,
    },
  ),
});
