// The compiled route table: each row checked against the schema at start (an unknown operation or path
// argument fails loudly), and request paths matched to rows (404 unknown, 405 with the allowed verbs).
import type { GraphQLSchema } from 'graphql';
import { OperationTypeNode } from 'graphql';
import { dtoName } from './dto.js';
import { camel, plural } from './names.js';
import type { Method, RouteDef, RouteModule } from './route.types.js';
import { type AnyField, Names, type ResultShape, reachable, resultShape } from './schema.model.js';

export interface Route {
  def: RouteDef;
  segments: readonly (string | { param: string })[];
  operation: OperationTypeNode;
  field: AnyField;
  shape: ResultShape;
  /** REST name of the returned resource (`Car`) and its plural (`Cars`). */
  rest: string;
  /** The request DTO name and OpenAPI operationId (`GetCar`, CONTRACT §16). */
  dto: string;
  plural: string;
  /** GraphQL argument → the path parameter that fills it. */
  pathArgs: ReadonlyMap<string, string>;
  status: 200 | 201 | 202 | 204;
  /** Resource types whose cached GETs a successful call makes stale (mutations). */
  invalidates: readonly string[];
  /**
   * Resource types a cached GET's entry is tagged with: what it shows, and what it depends on. Known once here:
   * walking the schema for them on every miss cost an uncached car a few per cent of its CPU (test/bench, S2).
   */
  tags: readonly string[];
}

/**
 * A path's route, or the verbs its path allows; `template` is the matched row's path as written (`/cars/{Id}`),
 * which is what the service's metrics label a request with (any path, a bounded set of values).
 */
export type Match =
  | { route: Route; params: Map<string, string>; template: string }
  | { allow: Method[]; template: string }
  | undefined;

const statusFor = { GET: 200, POST: 201, PUT: 202, PATCH: 202, DELETE: 204 } as const;

function compile(def: RouteDef, schema: GraphQLSchema, names: Names): Route {
  const mutation = schema.getMutationType()?.getFields()[def.operation];
  const query = schema.getQueryType()?.getFields()[def.operation];
  const field = (def.method === 'GET' ? query : mutation) as AnyField | undefined;
  if (!field)
    throw new Error(
      `route ${def.method} ${def.path}: the schema has no ${def.method === 'GET' ? 'query' : 'mutation'} ${def.operation}`,
    );
  const segments = def.path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (/^\{\w+\}$/.test(s) ? { param: s.slice(1, -1) } : s.toLowerCase()));
  const pathArgs = new Map<string, string>();
  for (const s of segments) {
    if (typeof s === 'string') continue;
    const arg = def.params?.[s.param] ?? camel(s.param);
    if (!field.args.some((a) => a.name === arg))
      throw new Error(`route ${def.path}: ${def.operation} has no argument ${arg}`);
    pathArgs.set(arg, s.param);
  }
  const shape = resultShape(field);
  const rest = names.rest(shape.node.name);
  return {
    def,
    segments,
    operation: def.method === 'GET' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
    field,
    shape,
    rest,
    dto: dtoName(def, shape.kind),
    plural: plural(rest),
    pathArgs,
    status: statusFor[def.method],
    invalidates: def.method === 'GET' ? [] : invalidatedBy(def, shape.node),
    tags: def.method === 'GET' ? [...reachable(shape.node), ...(def.dependsOn ?? [])] : [],
  };
}

/** The tags a successful write through this row makes stale: what it returns, and what the row adds. */
export const invalidatedBy = (def: RouteDef, node: ResultShape['node']): string[] =>
  [...new Set([...reachable(node), ...(def.invalidates ?? [])])].filter((t) => t !== 'Deleted');

const literals = (r: Route): number => r.segments.filter((s) => typeof s === 'string').length;

export class RouteTable {
  readonly routes: readonly Route[];
  readonly names: Names;
  readonly #byDto = new Map<string, Route>();
  constructor(
    readonly schema: GraphQLSchema,
    modules: readonly RouteModule[],
  ) {
    this.names = new Names(modules.flatMap((m) => m.names ?? []));
    // More literal segments first, so `/cars/{Id}/bookings` never loses to a looser pattern.
    this.routes = modules
      .flatMap((m) => m.routes)
      .map((d) => compile(d, schema, this.names))
      .sort((a, b) => literals(b) - literals(a));
    for (const r of this.routes) {
      const key = r.dto.toLowerCase();
      const taken = this.#byDto.get(key);
      if (taken) throw new Error(`routes ${taken.def.path} and ${r.def.path} both name the request ${r.dto}`);
      this.#byDto.set(key, r);
    }
  }

  /** The route a request DTO name stands for, any case (`GetCar`, `getcar`). */
  byDto(name: string): Route | undefined {
    return this.#byDto.get(name.toLowerCase());
  }

  match(method: string, path: string): Match {
    const parts = path.split('/').filter((s) => s !== '');
    const allow = new Set<Method>();
    let template: string | undefined;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params = new Map<string, string>();
      const ok = route.segments.every((s, i) => {
        const part = parts[i]!;
        if (typeof s === 'string') return s === part.toLowerCase();
        try {
          params.set(s.param, decodeURIComponent(part));
          return true;
        } catch {
          return false;
        }
      });
      if (!ok) continue;
      if (route.def.method === method) return { route, params, template: route.def.path };
      allow.add(route.def.method);
      template ??= route.def.path;
    }
    return template !== undefined ? { allow: [...allow], template } : undefined;
  }

  /** The absolute URL of a created resource: its `GET /<plural>/{Id}` route, or the route's `location`. */
  location(route: Route, node: Record<string, unknown>, base: string): string | undefined {
    const fill = (template: string): string =>
      template.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(String(node[p] ?? '')));
    if (route.def.location) return `${base}${fill(`${route.def.location}/{Id}`)}`;
    const get = this.routes.find(
      (r) =>
        r.def.method === 'GET' &&
        r.shape.kind === 'one' &&
        r.shape.node === route.shape.node &&
        r.segments.filter((s) => typeof s !== 'string').length === 1 &&
        r.pathArgs.has('id'),
    );
    return get ? `${base}${fill(get.def.path)}` : undefined;
  }
}
