// Hostile requests generated from the OpenAPI document (CONTRACT §13): per operation, values per parameter
// type — NUL bytes, huge and fractional numbers, impossible dates, deep JSON, long strings, wrong types.
import fc from 'fast-check';

export type Json = Record<string, any>;

export interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: { name: string; schema: Json }[];
  body?: Json | undefined;
}

/** Follows `$ref`s inside the document. */
export const deref = (doc: Json, v: Json | undefined): Json | undefined => {
  let cur = v;
  for (let i = 0; cur?.$ref && i < 10; i += 1)
    cur = (cur.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Json | undefined>((o, k) => o?.[k], doc);
  return cur;
};

export function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
    Object.entries(ops as Json)
      .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map(([method, op]) => {
        const params = ((op as Json).parameters ?? []).map((p: Json) => deref(doc, p)!);
        const body = deref(doc, (op as Json).requestBody?.content?.['application/json']?.schema);
        return {
          method: method.toUpperCase(),
          path,
          pathParams: params.filter((p: Json) => p.in === 'path').map((p: Json) => p.name as string),
          query: params
            // Other formats have their own tests; here every answer is read as JSON.
            .filter((p: Json) => p.in === 'query' && p.name.toLowerCase() !== 'format')
            .map((p: Json) => ({ name: p.name as string, schema: deref(doc, p.schema) ?? {} })),
          body: body ? deref(doc, body) : undefined,
        };
      }),
  );
}

const deepJson = (depth: number): unknown => (depth === 0 ? 'x' : { a: deepJson(depth - 1) });

/** Values any field may be sent: the wrong type, NUL, control bytes, enormous or empty text. */
const anyHostile = fc.oneof(
  fc.constantFrom<unknown>(
    'a\u0000b',
    '\u0000',
    '\u0001\u001f\u007f',
    '',
    ' ',
    'x'.repeat(20_000),
    '\ud800',
    '🚗'.repeat(300),
    "'; drop table car; --",
    null,
    true,
    [],
    {},
    [[[[[]]]]],
    deepJson(200),
    1e308,
    -1e308,
    2 ** 53,
    -0,
    0.5,
  ),
  fc.string({ maxLength: 40 }),
  fc.integer(),
);

const hostileDate = fc.constantFrom(
  '0000-01-01T00:00:00.000Z',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2027-02-30T10:00:00Z',
  '2027-02-29T10:00:00Z',
  '2027-01-01T25:00:00Z',
  '2027-01-01T10:60:00Z',
  '2027-01-01T10:00:60Z',
  '9999-12-31T23:59:59.999Z',
  '0001-01-01T00:00:00Z',
  '2027-01-01T10:00:00+01:00',
  '2027-01-01',
  'yesterday',
);

const hostileNumber = fc.oneof(
  fc.constantFrom<unknown>(
    1e308,
    -1e308,
    2 ** 31,
    -(2 ** 31) - 1,
    10 ** 12,
    0,
    -1,
    0.1,
    '1e400',
    'NaN',
    'Infinity',
    '12abc',
  ),
  fc.integer({ min: -5, max: 2000 }),
  fc.double(),
);

/** A hostile value for a field of this schema. */
export function valueFor(doc: Json, schema: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, schema) ?? {};
  const typed: fc.Arbitrary<unknown>[] = [];
  if (s.format === 'date-time') typed.push(hostileDate);
  if (s.format === 'uuid')
    typed.push(fc.uuid(), fc.constantFrom('not-a-uuid', '00000000-0000-0000-0000-00000000000g'));
  if (s.type === 'integer' || s.type === 'number') typed.push(hostileNumber);
  if (Array.isArray(s.enum))
    typed.push(fc.constantFrom(...(s.enum as unknown[])), fc.constant(`${s.enum[0]}\u0000`));
  if (s.type === 'array') typed.push(fc.array(valueFor(doc, s.items, depth + 1), { maxLength: 4 }));
  if (s.type === 'object' && s.properties && depth < 3) typed.push(bodyFor(doc, s, depth + 1));
  return typed.length > 0 ? fc.oneof(anyHostile, ...typed) : anyHostile;
}

/** An object with some of the schema's properties, each hostile, in any casing the binder accepts. */
export function bodyFor(doc: Json, schema: Json, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries((schema.properties ?? {}) as Json);
  if (props.length === 0) return fc.constant({});
  return fc
    .subarray(props, { minLength: 0, maxLength: Math.min(props.length, 8) })
    .chain((chosen) =>
      fc
        .tuple(...chosen.map(([, p]) => valueFor(doc, p, depth)))
        .map((values) => Object.fromEntries(chosen.map(([name], i) => [name, values[i]]))),
    );
}

/** Query string text for a value: strings as they are, anything else as JSON. */
export const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
