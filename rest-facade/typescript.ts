// "Add ServiceStack Reference" (CONTRACT §16): `GET /types/typescript`, the TypeScript DTOs in ServiceStack's
// format, generated from the route table and the schema as the OpenAPI document is — a request DTO per route
// (`IReturn<Response>` or `IReturnVoid`), a response class per envelope, and every type they show.
import type Koa from 'koa';
import { etagOf, matchesIfNoneMatch } from './cache.js';
import { dtoProperties } from './dto.js';
import { API_VERSION } from './openapi.js';
import { recentlyUsed } from './recent.js';
import { carShareOf, send } from './respond.js';
import type { Method } from './route.types.js';
import type { Route, RouteTable } from './table.js';
import { type TsProperty, TypeDeclarations, tsClass } from './typescript.types.js';

/** ServiceStack's marker interfaces: what `JsonServiceClient` reads from a typed request. */
const MARKERS = `export interface IReturn<T>
{
    createResponse(): T;
}

export interface IReturnVoid
{
    createResponse(): void;
}

export interface IGet {}
export interface IPost {}
export interface IPut {}
export interface IPatch {}
export interface IDelete {}`;

/** Declarations every document holds: the error shape of CONTRACT §10 and a search's Metadata (§3). */
function declareCommon(types: TypeDeclarations): void {
  const required = (name: string, type: string): TsProperty => ({ name, type, optional: false });
  const meta = { name: 'Meta', type: '{ [index: string]: any }', optional: true };
  types.declare(
    'ResponseError',
    tsClass('ResponseError', [
      required('ErrorCode', 'string'),
      required('FieldName', 'string'),
      required('Message', 'string'),
      meta,
    ]),
  );
  types.declare(
    'ResponseStatus',
    tsClass('ResponseStatus', [
      required('ErrorCode', 'string'),
      required('Message', 'string'),
      required('Errors', 'ResponseError[]'),
      meta,
    ]),
  );
  types.declare(
    'MetadataSort',
    tsClass('MetadataSort', [required('By', 'string'), required('Direction', types.named('SortDirection'))]),
  );
  types.declare('MetadataFilter', tsClass('MetadataFilter', [required('Fields', 'string[]')]));
  types.declare(
    'Metadata',
    tsClass(
      'Metadata',
      [
        required('Total', 'number'),
        required('Limit', 'number'),
        required('Offset', 'number'),
        required('Sort', 'MetadataSort'),
        required('Filter', 'MetadataFilter'),
        { name: 'Distinct', type: 'string | null', optional: true },
      ],
      { description: 'What a search applied, with defaults filled in.' },
    ),
  );
}

const verbMarker = {
  GET: 'IGet',
  POST: 'IPost',
  PUT: 'IPut',
  PATCH: 'IPatch',
  DELETE: 'IDelete',
} as const satisfies Record<Method, string>;

/** The response class of a route: its envelope's properties, and `ResponseStatus` as every answer may carry. */
function responseClass(types: TypeDeclarations, route: Route): string | undefined {
  if (route.status === 204) return undefined;
  const name = `${route.dto}Response`;
  const node = types.ref(route.shape.node);
  const status: TsProperty = { name: 'ResponseStatus', type: 'ResponseStatus', optional: true };
  const props: TsProperty[] =
    route.shape.kind === 'page'
      ? [
          { name: route.plural, type: `${node}[]`, optional: false },
          { name: 'Metadata', type: types.metadata(route.shape.page!, route.shape.node), optional: false },
        ]
      : route.shape.kind === 'many'
        ? [{ name: route.plural, type: `${node}[]`, optional: false }]
        : [{ name: route.rest, type: node, optional: false }];
  types.declare(name, tsClass(name, [...props, status]), 'response');
  return name;
}

function requestClass(types: TypeDeclarations, route: Route, prefix: string): void {
  const response = responseClass(types, route);
  const props = dtoProperties(route).map((p) => ({
    name: p.name,
    type: !p.type ? 'string' : route.def.method === 'GET' ? types.type(p.type) : types.inputType(p.type),
    optional: !p.required,
    description: p.description,
  }));
  const name = route.dto;
  const returns = response ? `IReturn<${response}>` : 'IReturnVoid';
  types.declare(
    name,
    tsClass(name, props, {
      implements: [returns, verbMarker[route.def.method]],
      heading: [`// @Route("${prefix}${route.def.path}", "${route.def.method}")`],
      description: route.def.summary,
      methods: [
        `public getTypeName() { return '${name}'; }`,
        `public getMethod() { return '${route.def.method}'; }`,
        response ? `public createResponse() { return new ${response}(); }` : 'public createResponse() {}',
      ],
    }),
    'request',
  );
}

export function typeScriptDtos(
  table: RouteTable,
  publicUrl: string,
  prefix: string,
  version: string,
): string {
  const types = new TypeDeclarations(table);
  declareCommon(types);
  const routes = [...table.routes].sort(
    (a, b) => a.def.path.localeCompare(b.def.path) || a.def.method.localeCompare(b.def.method),
  );
  for (const route of routes) requestClass(types, route, prefix);
  const header = [
    '/* Options:',
    `Version: ${version}`,
    `BaseUrl: ${publicUrl}`,
    '',
    'Generated from the Carshare REST API. Use with @servicestack/client:',
    '  const client = new JsonServiceClient(BaseUrl); client.bearerToken = accessToken;',
    '  const { Car } = await client.get(new GetCar({ Id }));',
    '*/',
  ].join('\n');
  return `${[header, MARKERS, ...types.drain()].join('\n\n')}\n`;
}

/** Serves the DTOs of the request's car share (its BaseUrl), generated on its first request, with an ETag. */
export function typeScriptServer(table: RouteTable, prefix: string): (ctx: Koa.Context) => void {
  const made = recentlyUsed<{ body: string; etag: string }>(16);
  return (ctx) => {
    const carShare = carShareOf(ctx);
    const dtos = made(`${carShare.id}\n${carShare.baseUrl}`, () => {
      const body = typeScriptDtos(table, carShare.baseUrl, prefix, API_VERSION);
      return { body, etag: etagOf(body, carShare.id) };
    });
    // What ServiceStack answers for /types/typescript.
    const headers = {
      'Content-Type': 'text/plain; charset=utf-8',
      ETag: dtos.etag,
      'Cache-Control': 'public, max-age=300',
    };
    if (matchesIfNoneMatch(ctx.get('If-None-Match') || undefined, dtos.etag))
      return send(ctx, 304, null, headers);
    send(ctx, 200, dtos.body, headers);
  };
}
