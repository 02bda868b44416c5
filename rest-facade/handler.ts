// One REST request through its route: cache lookup, binding, the GraphQL document, execution, the
// envelope in the negotiated format, and the cache afterwards (writes make it stale elsewhere: invalidation.ts).
import type Koa from 'koa';
import { bindArguments } from './binding.js';
import { type CachedResponse, digestOf, etagOf, matchesIfNoneMatch, memoKeys, seenBefore } from './cache.js';
import type { DocumentCache } from './document.js';
import { envelope, jsonEnvelope } from './envelope.js';
import { authHeaders, fieldError, fieldErrors, fromGraphQL, RestError } from './errors.js';
import type { FacadeDeps } from './facade.js';
import { render } from './formats/index.js';
import { contentTypes, type Format } from './formats/negotiate.js';
import { nameKey } from './names.js';
import { bodyParams, mergeParams, type Params, propertyText } from './request.js';
import { type Caller, carShareOf, knownCaller, requestUrl, send } from './respond.js';
import { fieldsOf } from './schema.model.js';
import {
  fieldSelectionText,
  nodeSelection,
  pageSelection,
  parseEmbed,
  parseFieldSelection,
} from './selection.js';
import type { Route, RouteTable } from './table.js';

const DEFAULT_TTL = 10;

/** The cache key's request part: path and query with names normalised and sorted. */
function requestKey(path: string, querystring: string, format: Format): string {
  const q = [...new URLSearchParams(querystring)]
    .filter(([k]) => nameKey(k) !== 'format')
    .map(([k, v]) => `${encodeURIComponent(nameKey(k))}=${encodeURIComponent(v)}`)
    .sort();
  return `${format}:${path.toLowerCase()}?${q.join('&')}`;
}

const callerKey = memoKeys(digestOf);
const requestKeyOf = memoKeys((raw) => {
  const [format, path, querystring] = raw.split('\n') as [Format, string, string];
  return requestKey(path, querystring, format);
});

/**
 * Where a GET's answer is kept in its car share's cache (`caller.carShare.id`, given to the cache apart): per caller
 * (their key hashed) and per normalised request.
 */
export const cacheKeyOf = (caller: Caller, format: Format, path: string, querystring: string): string =>
  `${callerKey(caller.key)}:${requestKeyOf(`${format}\n${path}\n${querystring}`)}`;

/** The time a route's GET answers are kept, and may be kept by clients. */
export const ttlOf = (route: Route): number => route.def.ttl ?? DEFAULT_TTL;

/** The headers of every GET answer, 200 or 304. */
export const representationHeaders = (etag: string, ttl: number): Record<string, string> => ({
  ETag: etag,
  'Cache-Control': `private, max-age=${ttl}`,
  Vary: 'Accept, Authorization',
});

/** PATCH may only name updatable properties: a read-only property of the resource is 400 naming it. */
function checkReadOnly(route: Route, params: Params, used: ReadonlySet<string>): void {
  const { plain, embeds } = fieldsOf(route.shape.node);
  const fields = new Map([...plain, ...embeds].map((f) => [nameKey(f.name), f.name]));
  const errors = [...params.values()]
    .filter(
      (p) =>
        p.source === 'body' &&
        !used.has(nameKey(p.name)) &&
        fields.has(nameKey(p.name)) &&
        nameKey(p.name) !== 'id',
    )
    .map((p) => fieldError('InvalidValue', p.name, `${p.name} may not be updated`));
  if (errors.length > 0) throw fieldErrors(errors);
}

export interface HandlerContext<C extends Caller> {
  deps: FacadeDeps<C>;
  table: RouteTable;
  documents: DocumentCache;
  /** Where the facade is mounted. */
  prefix: string;
}

export type Handle = (
  ctx: Koa.Context,
  route: Route,
  pathParams: Map<string, string>,
  format: Format,
  requestId: string,
) => Promise<void>;

export function createHandler<C extends Caller>({
  deps,
  table,
  documents,
  prefix,
}: HandlerContext<C>): Handle {
  /** A cached or fresh GET answer: 304 when the client already has this representation. */
  const sendRepresentation = (ctx: Koa.Context, r: CachedResponse, ttl: number) => {
    const headers = representationHeaders(r.etag, ttl);
    if (matchesIfNoneMatch(ctx.get('If-None-Match') || undefined, r.etag))
      return send(ctx, 304, null, headers);
    send(ctx, 200, r.body, { ...r.headers, ...headers });
  };

  /**
   * GET misses in flight, by cache key and the tag versions they read: requests for a key that is being computed
   * wait for that answer instead of computing it again. Without this, an expiring 100-car page was recomputed by
   * every connection at once (test/bench, S3: seconds of CPU every TTL, and the service's memory doubled).
   */
  const inFlight = new Map<string, Promise<CachedResponse | undefined>>();
  /** Keys answered before: a key's first answer is kept as its ETag only, its body from the second on (cache.ts). */
  const seen = seenBefore();
  interface Flight {
    done?: (r: CachedResponse | undefined) => void;
  }

  const handle: Handle = async (ctx, route, pathParams, format, requestId) => {
    const flight: Flight = {};
    try {
      await respond(ctx, route, pathParams, format, requestId, flight);
    } finally {
      flight.done?.(undefined);
    }
  };
  return handle;

  async function respond(
    ctx: Koa.Context,
    route: Route,
    pathParams: Map<string, string>,
    format: Format,
    requestId: string,
    flight: Flight,
  ) {
    const isGet = route.def.method === 'GET';
    const ttl = ttlOf(route);
    let cacheKey: string | undefined;
    let versions: Record<string, number> = {};
    const carShareId = carShareOf(ctx).id;
    if (isGet && deps.cache) {
      cacheKey = cacheKeyOf(knownCaller(ctx), format, ctx.path, ctx.querystring);
      // A revalidation reads the entry's ETag only; its body only when it is to be sent.
      const ifNoneMatch = ctx.get('If-None-Match') || undefined;
      // `heard`: set by the edge once the request has passed the listening connection's barrier.
      const heard = ctx.state.heard === true;
      const etag = ifNoneMatch && (await deps.cache.etagOf(carShareId, cacheKey, route.tags, heard));
      if (etag && matchesIfNoneMatch(ifNoneMatch, etag))
        return send(ctx, 304, null, representationHeaders(etag, ttl));
      const hit = await deps.cache.get(carShareId, cacheKey);
      if (hit) return sendRepresentation(ctx, hit, ttl);
      // Your own writes (CONTRACT §28). A write's tags are bumped before its answer is sent (the mutation hook
      // awaits the bump, in Redis too), so a request sent after that answer reads the new versions here, before it
      // looks for a read in flight. A read in flight is shared only with requests that read the same versions:
      // one that read them before the bump may have seen the rows before the write, and is not shared past it;
      // one that read them after the bump ran its SQL after the write committed. Its answer is stored under the
      // versions it read, so one from before a write is never a hit (nor a 304) after it.
      versions = await deps.cache.versions(carShareId, route.tags);
      const key = `${carShareId}\n${cacheKey}@${Object.values(versions).join('.')}`;
      const pending = inFlight.get(key);
      const shared = pending && (await pending);
      if (shared) return sendRepresentation(ctx, shared, ttl);
      if (!pending) {
        let settle: (r: CachedResponse | undefined) => void = () => undefined;
        const mine = new Promise<CachedResponse | undefined>((ok) => {
          settle = ok;
        });
        inFlight.set(key, mine);
        flight.done = (r) => {
          if (inFlight.get(key) === mine) inFlight.delete(key);
          settle(r);
        };
      }
    }

    const body = isGet || route.def.method === 'DELETE' ? new Map() : await bodyParams(ctx.req);
    const params = mergeParams(body, ctx.querystring);
    const control = (name: string) => {
      const p = params.get(name);
      return p === undefined ? undefined : Array.isArray(p.value) ? p.value.join(',') : String(p.value);
    };
    const node = route.shape.node;
    const single = route.shape.kind !== 'page';
    const embed = isGet
      ? parseEmbed(control('embed'), deps.schema, table.names, node, single)
      : parseEmbed(undefined, deps.schema, table.names, node, single);
    const selection = isGet ? fieldSelectionText(control) : undefined;
    const fields = selection ? parseFieldSelection(selection.raw, node, selection.name) : null;
    // A predefined route (`/api/GetCar?Id=…`, CONTRACT §16) carries the path parameters as properties.
    const pathValue = (param: string) => pathParams.get(param) ?? propertyText(params, param);
    // CONTRACT §13: a NUL anywhere in the path is InvalidValue naming the parameter, before any format rule.
    for (const [param, value] of pathParams)
      if (value.includes('\0'))
        throw fieldErrors([fieldError('InvalidValue', param, `${param} must not contain NUL characters`)]);
    for (const [param, f] of Object.entries(route.def.formats ?? {})) {
      const value = pathValue(param);
      if (value !== undefined && !f.pattern.test(value))
        throw fieldErrors([fieldError('InvalidFormat', param, `${param} must be ${f.description}`)]);
    }
    const pathArgs = new Map(
      [...route.pathArgs].map(([arg, param]) => [arg, { param, value: pathValue(param) }]),
    );
    const bound = bindArguments(route.field, pathArgs, params, route.def.aliases, route.def.composed);
    if (route.def.method === 'PATCH') checkReadOnly(route, params, bound.used);

    const args = route.field.args.filter((a) => Object.hasOwn(bound.variables, a.name));
    const shapeKey = `${embed.mode}:${[...embed.pairs].join(',')}|${fields?.join(',') ?? '*'}|${args.map((a) => a.name).join(',')}`;
    const { nodes, document } = documents.plan(route, shapeKey, () => {
      const nodes =
        route.shape.kind === 'deleted'
          ? nodeSelection(node, { mode: 'none', pairs: new Set() }, ['id'])
          : nodeSelection(node, embed, fields);
      const document = documents.get({
        operation: route.operation,
        field: route.field.name,
        args,
        selection: route.shape.page ? pageSelection(route.shape.page, nodes) : nodes,
      });
      return { nodes, document };
    });
    const result = await deps.execute(
      document,
      bound.variables,
      knownCaller<C>(ctx),
      requestId,
      deps.signalOf?.(ctx),
    );
    const first = result.errors?.[0];
    if (first) {
      const e = fromGraphQL(first, deps.errors, bound.aliases);
      throw new RestError(
        e.body,
        authHeaders(deps.errors, e.body.ErrorCode, e.body.Meta, Boolean(ctx.get('Authorization'))),
      );
    }
    const data = result.data?.[route.field.name];
    if (route.status === 204) return send(ctx, 204, null, {});

    /** A GET's answer: encoded once, kept, handed to the requests that waited for it, and sent. */
    const represent = async (text: string, headers: Record<string, string>) => {
      const body = Buffer.from(text);
      const rep: CachedResponse = { body, headers, etag: etagOf(body, carShareId) };
      if (deps.cache && cacheKey) {
        const kept = seen(`${carShareId}\n${cacheKey}`) ? rep : { etag: rep.etag };
        await deps.cache.set(carShareId, cacheKey, kept, versions, ttl);
      }
      flight.done?.(rep);
      sendRepresentation(ctx, rep, ttl);
    };
    // JSON, the common case: written in one pass from the execution result (envelope.ts).
    if (isGet && format === 'json')
      return represent(jsonEnvelope(route, data, fields, nodes), { 'Content-Type': contentTypes.json });
    const payload = envelope(route, data, nodes, fields);
    // Absolute URLs (Location, the HTML form's links) begin with the car share's BaseUrl (CONTRACT §19).
    const base = carShareOf(ctx).baseUrl;
    const url = requestUrl(ctx.originalUrl, base);
    const r = render(payload, format, url);
    if (isGet) return represent(r.body, r.headers);
    const headers = { ...r.headers };
    if (route.status === 201) {
      const created = payload.rows[0];
      const location = created && table.location(route, created, `${base}${prefix}`);
      if (location) headers.Location = location;
    }
    send(ctx, route.status, r.body, headers);
  }
}
