// The OpenAPI 3.1 document of the REST API, generated from the route table and the schema: every route,
// parameter, body, response and error, with the schema's descriptions as the documentation.
import {
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { pascal } from './names.js';
import { errorResponses, errorSchemas, type Json } from './openapi.errors.js';
import { fieldsOf, isResource } from './schema.model.js';
import type { Route, RouteTable } from './table.js';

const scalars: Readonly<Record<string, Json>> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  UUID: { type: 'string', format: 'uuid' },
  DateTime: { type: 'string', format: 'date-time', examples: ['2026-07-03T12:00:00.000Z'] },
  JSON: {},
};

class Builder {
  readonly schemas: Record<string, Json> = { ...errorSchemas };
  readonly #pending: GraphQLNamedType[] = [];
  constructor(private readonly table: RouteTable) {}

  name(t: GraphQLNamedType): string {
    return isResource(t) ? this.table.names.rest(t.name) : t.name;
  }

  ref(t: GraphQLNamedType): Json {
    const name = this.name(t);
    if (!this.schemas[name]) {
      this.schemas[name] = {};
      this.#pending.push(t);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  type(t: GraphQLOutputType | GraphQLInputType): Json {
    const inner = isNonNullType(t) ? t.ofType : t;
    if (isListType(inner)) return { type: 'array', items: this.type(inner.ofType) };
    if (isEnumType(inner)) return { type: 'string', enum: inner.getValues().map((v) => v.name) };
    if (isScalarType(inner)) return scalars[inner.name] ?? { type: 'string' };
    return this.ref(inner);
  }

  /** Fills in the component schemas referenced so far (and those they reference). */
  drain(): void {
    for (let t = this.#pending.shift(); t; t = this.#pending.shift()) {
      const fields = isObjectType(t)
        ? (() => {
            const { plain, embeds } = fieldsOf(t);
            return [...plain, ...embeds];
          })()
        : isInputObjectType(t)
          ? Object.values(t.getFields())
          : [];
      const properties: Record<string, Json> = {};
      const required: string[] = [];
      for (const f of fields) {
        const embedded = isObjectType(t) && isResource(getNamedType(f.type));
        const description = [f.description, embedded ? 'Embedded: see `embed`.' : undefined]
          .filter(Boolean)
          .join(' ');
        properties[pascal(f.name)] = { ...this.type(f.type), ...(description ? { description } : {}) };
        if (isNonNullType(f.type) && !embedded) required.push(pascal(f.name));
      }
      this.schemas[this.name(t)] = {
        type: 'object',
        ...(t.description ? { description: t.description } : {}),
        properties,
        ...(required.length > 0 ? { required } : {}),
      };
    }
  }
}

/** The API's version, in the OpenAPI document and the TypeScript DTOs' header. */
export const API_VERSION = '1.0.0';

const successText = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' } as const;

function envelopeSchema(b: Builder, route: Route): Json {
  const node = b.ref(route.shape.node);
  if (route.shape.kind === 'page')
    return {
      type: 'object',
      properties: {
        [route.plural]: { type: 'array', items: node },
        Metadata: { $ref: '#/components/schemas/Metadata' },
      },
      required: [route.plural, 'Metadata'],
    };
  if (route.shape.kind === 'many')
    return {
      type: 'object',
      properties: { [route.plural]: { type: 'array', items: node } },
      required: [route.plural],
    };
  return { type: 'object', properties: { [route.rest]: node }, required: [route.rest] };
}

function operation(b: Builder, route: Route): Json {
  const { def, field } = route;
  const parameters: Json[] = [];
  let requestBody: Json | undefined;
  for (const arg of field.args) {
    const param = route.pathArgs.get(arg.name);
    if (param) {
      const format = def.formats?.[param];
      const schema = format ? { type: 'string', pattern: format.pattern.source } : b.type(arg.type);
      parameters.push({ name: param, in: 'path', required: true, schema });
      continue;
    }
    const composed = def.composed?.[arg.name];
    if (composed) {
      for (const p of composed.parameters)
        parameters.push({
          name: p.name,
          in: 'query',
          required: false,
          description: p.description,
          schema: { type: p.type },
        });
      continue;
    }
    const named = getNamedType(arg.type);
    if (isInputObjectType(named)) {
      const schema = b.ref(named);
      requestBody = {
        required: isNonNullType(arg.type),
        description: 'Property names match in any case, ignoring `_` and `-`; query-string values win.',
        content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
      };
      continue;
    }
    parameters.push({
      name: arg.name,
      in: 'query',
      required: false,
      ...(arg.description ? { description: arg.description } : {}),
      schema: b.type(arg.type),
    });
  }
  if (def.method === 'GET') {
    parameters.push({
      name: 'embed',
      in: 'query',
      required: false,
      description: '`none`, `all` (or `*`), or a comma list of `resource.child` paths.',
      schema: { type: 'string' },
    });
    if (route.shape.kind === 'page')
      parameters.push({
        name: 'filter',
        in: 'query',
        required: false,
        description: 'A comma list of fields: each result then holds `Id` plus exactly those.',
        schema: { type: 'string' },
      });
    if (route.shape.kind === 'page')
      parameters.push({
        name: 'fields',
        in: 'query',
        required: false,
        description: "Another name for `filter` (AutoQuery's); send one of the two.",
        schema: { type: 'string' },
      });
  }
  parameters.push({ $ref: '#/components/parameters/format' });
  const success =
    route.status === 204
      ? { description: successText[204] }
      : {
          description: successText[route.status],
          ...(route.status === 201
            ? {
                headers: {
                  Location: { description: 'The new resource', schema: { type: 'string', format: 'uri' } },
                },
              }
            : {}),
          ...(def.method === 'GET'
            ? { headers: { ETag: { description: 'Strong, per representation', schema: { type: 'string' } } } }
            : {}),
          content: { 'application/json': { schema: envelopeSchema(b, route) } },
        };
  // The errors this operation can answer besides those of every request (406, 429, 500), which the guide lists
  // once: 400 with input, 404 with an id, 409 for a change, 413/415 with a body.
  const errors = ['401', '403'];
  if (parameters.length > 1 || requestBody) errors.push('400');
  if (route.pathArgs.size > 0) errors.push('404');
  if (def.method !== 'GET') errors.push('409');
  if (requestBody) errors.push('413', '415');
  return {
    operationId: route.dto,
    summary: def.summary,
    ...(field.description ? { description: field.description } : {}),
    tags: [route.def.path.split('/')[1]!],
    ...(def.operation === 'createUserAccount' ? { security: [{}, { bearer: [] }] } : {}),
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [String(route.status)]: success,
      ...Object.fromEntries(
        errors.sort().map((c) => [c, { $ref: `#/components/responses/${errorResponses[c]!.name}` }]),
      ),
    },
  };
}

/**
 * How to call the GraphQL endpoint with a plain GET: its CSRF prevention refuses a GET that could come from a
 * form or an image tag, so the command a newcomer types first needs one header, and says so.
 */
export function graphqlOverGet(publicUrl: string): string {
  return (
    `\n\n**GraphQL** is at \`${publicUrl}/graphql\`: POST \`{"query": ...}\` as JSON, or GET with the query in the ` +
    'URL. A GET must carry the header `apollo-require-preflight: true` (or a `Content-Type: application/json`), ' +
    'otherwise CSRF prevention answers 400. With the default self-signed certificate, from the project folder:\n\n' +
    `\`\`\`\ncurl -G --cacert .data/tls/localhost.crt -H 'apollo-require-preflight: true' ` +
    `--data-urlencode 'query={__typename}' ${publicUrl}/graphql\n\`\`\``
  );
}

export function openApiDocument(table: RouteTable, publicUrl: string, prefix: string, guide?: string): Json {
  const b = new Builder(table);
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of [...table.routes].sort((x, y) => x.def.path.localeCompare(y.def.path))) {
    const path = `${prefix}${route.def.path}`;
    paths[path] ??= {};
    paths[path][route.def.method.toLowerCase()] = operation(b, route);
  }
  b.drain();
  const tags = [...new Set(table.routes.map((r) => r.def.path.split('/')[1]!))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Carshare REST API',
      version: API_VERSION,
      description:
        'ServiceStack-style REST over the Carshare GraphQL core. Responses are PascalCase; JSON by default, ' +
        'or XML, CSV, JSV and HTML by `format` or `Accept`. Errors are `{"ResponseStatus":{...}}`.' +
        graphqlOverGet(publicUrl) +
        (guide ? `\n\n${guide}` : ''),
      license: { name: 'Proprietary', url: `${publicUrl}/docs` },
    },
    servers: [{ url: publicUrl }],
    security: [{ bearer: [] }],
    tags: tags.map((t) => ({ name: t, description: `Operations under ${prefix}/${t}` })),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An OAuth 2.0 access token from /api/oauth/token',
        },
      },
      parameters: {
        format: {
          name: 'format',
          in: 'query',
          required: false,
          description: 'The response format; wins over `Accept`. Unknown values are 406.',
          schema: { type: 'string', enum: ['json', 'xml', 'csv', 'jsv', 'html'] },
        },
      },
      responses: Object.fromEntries(
        Object.values(errorResponses).map((r) => [
          r.name,
          {
            description: r.description,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
          },
        ]),
      ),
      schemas: b.schemas,
    },
  };
}
