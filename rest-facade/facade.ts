// The REST facade (DESIGN.md): a Koa middleware that matches a route, binds the request to the route's
// GraphQL operation, runs it through the caller's own execution path, and answers in the negotiated format.
import { randomUUID } from 'node:crypto';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type Koa from 'koa';
import { matchesIfNoneMatch, memoKeys, type ResponseCache } from './cache.js';
import { DocumentCache } from './document.js';
import {
  authHeaders,
  type ErrorTable,
  fromGraphQL,
  type GraphQLErrorLike,
  isRestError,
  RestError,
  restError,
} from './errors.js';
import type { Format } from './formats/negotiate.js';
import { cacheKeyOf, createHandler, representationHeaders, ttlOf } from './handler.js';
import { routeResolver, TYPES_PATH } from './predefined.js';
import { referenceServer } from './reference.js';
import { type Caller, formatOf, negotiate, type RequestCarShare, sendError } from './respond.js';
import type { RouteModule } from './route.types.js';
import { routeModules } from './routes/index.js';
import { type Route, RouteTable } from './table.js';
import { typeScriptServer } from './typescript.js';

export interface ExecutionResult {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLErrorLike[];
}

export interface FacadeDeps<C extends Caller = Caller> {
  schema: GraphQLSchema;
  /** The service's error codes, their statuses and the masked message (errors.ts says why it is handed over). */
  errors: ErrorTable;
  /** Runs a document exactly as `/graphql` would, as the caller the edge resolved (`ctx.state.caller`). */
  execute(
    document: DocumentNode,
    variables: Record<string, unknown>,
    caller: C,
    requestId: string,
    /** Aborts when the client hangs up: an execution still waiting for its turn is dropped. */
    signal?: AbortSignal,
  ): Promise<ExecutionResult>;
  /**
   * The request's client-gone signal: it aborts when the client hangs up, and tells the execution gate when the
   * request arrived (the service's own, `src/http/request-signal.ts`). No signal when absent.
   */
  signalOf?(ctx: Koa.Context): AbortSignal;
  /**
   * The server-side GET cache; none when absent. The facade only reads and fills it: every write, REST or not,
   * makes it stale in one place, the GraphQL server's mutation hook (invalidation.ts).
   */
  cache?: ResponseCache;
  routes?: readonly RouteModule[];
  /** Where the facade is mounted (default `/api`) and paths below it that belong to others. */
  prefix?: string;
  exclude?: readonly string[];
  /** Told about errors that became a 500. */
  onError?(err: unknown, requestId: string): void;
  /**
   * Markdown appended to the OpenAPI document's description (a guide for newcomers), for one car share: its
   * commands name its BaseUrl and quote its rate limits.
   */
  guide?(carShare: RequestCarShare): string;
}

/** A conditional GET as it arrives, before Koa has seen it. */
export interface ConditionalGet {
  path: string;
  querystring: string;
  accept: string | undefined;
  ifNoneMatch: string;
}

/** A conditional GET of a route whose answers are cached: what a revalidation in front of Koa needs. */
export interface Revalidation {
  request: ConditionalGet;
  route: Route;
  format: Format;
  /** The route's template (`/api/cars/{Id}`), for the metrics of a 304 answered in front of Koa. */
  template: string;
}

export interface Facade<C extends Caller = Caller> {
  middleware: Koa.Middleware;
  /** Whether a path is the facade's to answer (and no other part of the service's). */
  owns(path: string): boolean;
  /**
   * Whether a GET is one of the facade's cached routes (nothing else about it is known yet). Without a cache,
   * for a path that belongs to others, or a request the middleware would refuse: undefined.
   */
  revalidation(request: ConditionalGet): Revalidation | undefined;
  /**
   * The headers of the 304 the middleware would answer this caller, read from the cache; undefined when the
   * middleware has more to do (no entry, another representation, a refused token).
   */
  notModified(r: Revalidation, caller: C, heard?: boolean): Promise<Record<string, string> | undefined>;
  /**
   * The route template a request to this path is labelled with (`/api/cars/{Id}`, `/api/GetCar`), whatever its
   * verb; undefined for a path that is not one of the facade's routes. The middleware also leaves it on
   * `ctx.state.route`; this is for requests refused before the facade saw them (429s, preflights).
   */
  templateOf(method: string, path: string): string | undefined;
  table: RouteTable;
  documents: DocumentCache;
}

/** An error a dependency threw with a code of ours (a bad token is `Unauthorized`). */
function asRestError(err: unknown, hadToken: boolean, table: ErrorTable): RestError | undefined {
  if (isRestError(err)) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !Object.hasOwn(table.statusOf, code) || code === 'InternalServerError')
    return undefined;
  const e = fromGraphQL({ message: (err as Error).message, extensions: { code } }, table);
  return new RestError(e.body, authHeaders(table, code, e.body.Meta, hadToken));
}

export function createFacade<C extends Caller>(deps: FacadeDeps<C>): Facade<C> {
  const prefix = deps.prefix ?? '/api';
  const exclude = deps.exclude ?? [`${prefix}/oauth`];
  const table = new RouteTable(deps.schema, deps.routes ?? routeModules);
  const documents = new DocumentCache(deps.schema);

  const routes = routeResolver(table, prefix);
  const handle = createHandler({ deps, table, documents, prefix });
  // Absolute URLs in them are the car share's: made once per car share (a bounded number kept).
  const serveReference = referenceServer(table, prefix, deps.guide);
  const serveTypes = typeScriptServer(table, prefix);

  const referencePath = `${prefix}/openapi.json`;
  const excluded = (path: string) => exclude.some((x) => path === x || path.startsWith(`${x}/`));

  const templateOf = (method: string, path: string): string | undefined => {
    if (path === referencePath || path === TYPES_PATH) return path;
    if (!routes.owns(path) || excluded(path)) return undefined;
    return routes.resolve(method, path)?.template;
  };

  const middleware: Koa.Middleware = async (ctx, next) => {
    const path = ctx.path;
    if (ctx.method === 'GET' && (path === referencePath || path === TYPES_PATH)) {
      ctx.state.route = path;
      return path === referencePath ? serveReference(ctx) : serveTypes(ctx);
    }
    if (!routes.owns(path)) return next();
    if (excluded(path)) return next();
    const requestId = (ctx.state.requestId as string | undefined) ?? randomUUID();
    const hadToken = Boolean(ctx.get('Authorization'));
    let format: Format = 'json';
    try {
      format = negotiate(ctx);
      const match = routes.resolve(ctx.method, path);
      if (!match) throw restError('NotFound', `No route for ${ctx.method} ${path}`);
      ctx.state.route = match.template;
      if ('allow' in match) {
        const e = restError(
          'MethodNotAllowed',
          `${ctx.method} is not allowed on ${path}; use ${match.allow.join(', ')}`,
          {
            Allowed: match.allow,
          },
        );
        throw new RestError(e.body, { Allow: match.allow.join(', ') });
      }
      await handle(ctx, match.route, match.params, format, requestId);
    } catch (err) {
      const known = asRestError(err, hadToken, deps.errors);
      if (known) return sendError(ctx, known, format, deps.errors);
      // A client that left mid-request (its body cut short) failed nothing here: the edge answers for those.
      if (ctx.req.destroyed) throw err;
      deps.onError?.(err, requestId);
      const masked = restError('InternalServerError', deps.errors.masked, { RequestId: requestId });
      sendError(ctx, masked, format, deps.errors);
    }
  };

  /**
   * The route and format of a conditional GET, by path, query and Accept: matching the path against every route
   * and parsing the query for `format` were a tenth of a 304's own work (test/bench, S3).
   */
  const cachedRoute = memoKeys((raw): { route: Route; format: Format; template: string } | null => {
    const [path, querystring, accept] = raw.split('\n') as [string, string, string];
    if (!routes.owns(path) || path === referencePath || excluded(path)) return null;
    let format: Format;
    try {
      format = formatOf(querystring, accept || undefined);
    } catch {
      return null;
    }
    const match = routes.resolve('GET', path);
    return match && 'route' in match ? { route: match.route, format, template: match.template } : null;
  });
  const revalidation = (request: ConditionalGet): Revalidation | undefined => {
    if (!deps.cache) return undefined;
    const found = cachedRoute(`${request.path}\n${request.querystring}\n${request.accept ?? ''}`);
    return found ? { request, ...found } : undefined;
  };

  const notModified = async ({ request, route, format }: Revalidation, caller: C, heard?: boolean) => {
    if (!deps.cache || caller.refused !== undefined) return undefined;
    const etag = await deps.cache.etagOf(
      caller.carShare.id,
      cacheKeyOf(caller, format, request.path, request.querystring),
      route.tags,
      heard,
    );
    if (!etag || !matchesIfNoneMatch(request.ifNoneMatch, etag)) return undefined;
    return representationHeaders(etag, ttlOf(route));
  };

  const owns = (path: string) =>
    path === referencePath || path === TYPES_PATH || (routes.owns(path) && !excluded(path));

  return { middleware, owns, revalidation, notModified, templateOf, table, documents };
}
