// Composition root: the Koa application as a list of the pieces it mounts, in request order. Each piece is built
// by the module that owns it; this file only decides the order and hands each what it needs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import Koa from 'koa';
import { memoryCache } from '../rest-facade/cache.js';
import { redisCache } from '../rest-facade/cache.redis.js';
import { createFacade } from '../rest-facade/facade.js';
import { staleAfterMutations } from '../rest-facade/invalidation.js';
import { type RateVerdict, rateLimiter } from '../rest-facade/ratelimit.js';
import { type ErrorRenderers, errorRenderers } from '../rest-facade/respond.js';
import { PLATFORM_PREFIX, platformRoutes } from '../rest-facade/routes/platform.routes.js';
import type { Authenticator } from './access/authenticate.js';
import { backgroundInvalidation } from './background-invalidation.js';
import { carShareEdge } from './car-share-edge.js';
import type { CarShare } from './carshares/car-share.js';
import type { CarShareRegistry } from './carshares/registry.js';
import type { Config } from './config.js';
import { notifyNow } from './db/notify.js';
import type { Orm } from './db/orm.js';
import { createEdge } from './edge.js';
import type { Listener } from './events/listen.js';
import { graphqlTooManyRequests, operationLimits } from './graphql/action-limits.js';
import type { Context } from './graphql/context.js';
import { createGraphQL, type GraphQLEndpoint } from './graphql/endpoint.js';
import type { GateOptions } from './graphql/execution-gate.js';
import type { GraphQLLimits } from './graphql/limits.js';
import { identifyCaller, type RequestCaller } from './http/caller.js';
import { sliceLargeBodies } from './http/large-bodies.js';
import { rateLimitSettings } from './http/rate-limits.js';
import { sharedRedis } from './http/redis.js';
import { redisKeys } from './http/redis-keys.js';
import { clientGone } from './http/request-signal.js';
import { routerTemplates } from './metrics/labels.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { mountedBesideFacade } from './mounted.js';
import { answeringNotModified } from './not-modified.js';
import { oauthTooManyRequests } from './oauth/edges.js';
import { type AuthServer, OAUTH_PATH } from './oauth/server.js';
import type { Changed } from './shared/changes.js';
import type { Clock } from './shared/clock.js';
import { errorTable } from './shared/errors.js';
import type { Logger } from './shared/log.js';
import { cors } from './web/cors.js';
import { guideFor, guideSettings } from './web/guide.js';

export interface AppDeps {
  config: Pick<Config, 'TRUST_PROXY' | 'PUBLIC_URL'> &
    Partial<
      Pick<
        Config,
        | 'REDIS_URL'
        | 'RATE_LIMIT_PER_MINUTE'
        | 'RATE_LIMIT_ANONYMOUS_PER_MINUTE'
        | 'RATE_LIMIT_AUTH_PER_MINUTE'
        | 'CORS_ORIGINS'
        | 'ACCESS_TOKEN_TTL_SECONDS'
        | 'REFRESH_TOKEN_TTL_SECONDS'
        | 'GRAPHQL_MAX_DEPTH'
        | 'GRAPHQL_MAX_COST'
        | 'UNKNOWN_HOST'
        | 'RATE_LIMIT_CAR_SHARE_PER_MINUTE'
        | 'REDIS_KEY_PREFIX'
      >
    >;
  orm: Orm;
  /** Every car share of the deployment, found by host at the edge. */
  carShares: CarShareRegistry;
  schema: GraphQLSchema;
  log: Logger;
  clock: Clock;
  authenticator: Authenticator;
  /** The authorization servers (one per car share), mounted at /api/oauth when given. */
  oauth?: Pick<AuthServer, 'siteFor' | 'interactions'>;
  /** Prometheus metrics; a fresh registry when not given. */
  metrics?: Metrics;
  metricsToken?: string | undefined;
  /** The self-signed certificate clients must trust, cited in ready-made curl commands; none for a real one. */
  caFile?: string | undefined;
  /** The local CA's certificate file, which verifies car share hosts other than localhost; none for a real one. */
  localCaFile?: string | undefined;
  /** Execution gate sizes other than the service's own (tests only: tiny lanes, a short wait). */
  gate?: Partial<GateOptions> | undefined;
  /**
   * The instance's listening connection: with Redis, instances announce their REST cache bumps on it, and each
   * memoizes the ETags it reads from Redis while it hears them (rest-facade/etag-memo.ts). None: no memo.
   */
  listener?: Pick<Listener, 'hear' | 'listening'> | undefined;
}

/** The channel on which instances announce the REST cache's tag bumps (its payload: the car share and tags). */
export const REST_CACHE_CHANNEL = 'carshare_rest_cache';

export interface App {
  koa: Koa;
  /** The HTTPS listener's request handler: revalidations answered from the REST cache, everything else by Koa. */
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  apollo: ApolloServer<Context>;
  /** Builds a GraphQL context for a raw Authorization header (graphql-ws, in-process callers). */
  contextFor(authorization: string | undefined, carShare: CarShare, requestId?: string): Promise<Context>;
  /** The car share a request (a WebSocket upgrade) addresses; undefined for an unknown host with UNKNOWN_HOST=reject. */
  carShareOf(req: IncomingMessage): CarShare | undefined;
  /**
   * The BaseUrl of the car share at a host (a TLS handshake's server name), or undefined when none is known to be
   * there: for answers written before a request could be read.
   */
  baseUrlAt(host: unknown): string | undefined;
  /** Refusals outside Koa (plain HTTP, WebSocket upgrades), written as the chain writes its errors. */
  refusal: ErrorRenderers['refusal'];
  /** graphql-ws's queries and mutations, run and answered as /graphql's are (CONTRACT §13, §28). */
  socket: GraphQLEndpoint['socket'];
  /** The depth and cost limits of CONTRACT §13, for the transports outside Koa (graphql-ws). */
  limits: GraphQLLimits;
  /** Makes the REST cache stale after mutations run outside Apollo (graphql-ws): told their root fields, in a car share. */
  afterMutation(fields: readonly string[], carShareId: string): Promise<void>;
  /** The rate limits of CONTRACT §28 for a graphql-ws operation: its refusal, if any. */
  countOperation: ReturnType<typeof operationLimits>;
  /** Background work's changes, made stale in the REST cache like the mutations they stand for (src/background-invalidation.ts). */
  changed: Changed;
  /** Every car share by Id, and word of each change: open WebSockets of one suspended are closed (CONTRACT §23). */
  carShares: Pick<CarShareRegistry, 'byId' | 'onChange' | 'settled'>;
  stop(): Promise<void>;
}

export async function createApp(deps: AppDeps): Promise<App> {
  const { config, orm, schema, log, clock } = deps;
  const metrics = deps.metrics ?? createMetrics();
  // Shared by instances through Redis when configured: rate-limit counters and the REST cache's versions, every key
  // under REDIS_KEY_PREFIX and a car share's under its Id (CONTRACT §20).
  const redis = await sharedRedis(config.REDIS_URL, log);
  const keys = redisKeys(config.REDIS_KEY_PREFIX ?? 'carshare:');
  const { listener } = deps;
  const sharedCache = redis.client
    ? redisCache(
        redis.client,
        keys,
        redis.trouble,
        listener && {
          announce: (announcement) => notifyNow(orm, REST_CACHE_CHANNEL, announcement),
          hear: (heard) => listener.hear(REST_CACHE_CHANNEL, heard),
          listening: () => listener.listening(),
        },
      )
    : undefined;
  const restCache = sharedCache ?? memoryCache();
  const oauth429 = oauthTooManyRequests(OAUTH_PATH);
  const graphql429 = graphqlTooManyRequests('/graphql');
  // Revalidations counted in front of Koa that went on to it after all: counted once (not-modified.ts).
  const counted = new WeakMap<IncomingMessage, RateVerdict>();
  const limits = rateLimiter({
    ...rateLimitSettings(config),
    countedOf: (ctx) => counted.get(ctx.req),
    redis: redis.client,
    redisKeys: keys,
    onStoreError: redis.trouble,
    errors: errorTable,
    // The authorization server and /graphql answer a 429 in their own terms.
    refuse: (ctx, message, retryAfter, scope) =>
      oauth429(ctx, message) || graphql429(ctx, message, retryAfter, scope),
  });
  // Every write, through /graphql, the facade or the dashboard, makes the REST facade's cached GETs stale here, and
  // so do the changes background work makes. Both are awaited before the write's answer or the next step.
  const staleAfter = staleAfterMutations(schema, restCache);
  const renderers = errorRenderers(errorTable);
  const refuseSuspended = carShareEdge({
    carShares: deps.carShares,
    restCache,
    log,
    sendRest: renderers.render,
  });
  const graphql = await createGraphQL({
    schema,
    orm,
    clock,
    log,
    metrics,
    authenticator: deps.authenticator,
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxCost: config.GRAPHQL_MAX_COST,
    gate: deps.gate,
    afterMutation: staleAfter,
    // CONTRACT §28: each mutation root field of a /graphql document counts, not only the request.
    countActions: limits.actions,
  });
  const edge = createEdge({
    log,
    trustProxy: config.TRUST_PROXY,
    publicUrl: config.PUBLIC_URL,
    carShares: deps.carShares,
    unknownHost: config.UNKNOWN_HOST,
    renderError: renderers.render,
  });

  const koa = new Koa({ proxy: config.TRUST_PROXY });
  koa.on('error', edge.outsideChain);
  const mounted = await mountedBesideFacade({
    orm,
    metrics,
    metricsToken: deps.metricsToken,
    graphql,
    oauth: deps.oauth,
    caFile: deps.caFile,
    localCaFile: deps.localCaFile,
    clock,
    log,
  });
  const routerTemplate = routerTemplates(mounted.routers);
  koa.use(edge.requestLog);
  koa.use(
    metrics.middleware((method, path) => facade.templateOf(method, path) ?? routerTemplate(method, path)),
  );
  koa.use(edge.httpsOnly);
  koa.use(edge.errors);
  koa.use(edge.unknownHost);
  // A suspended car share is refused before its tokens, sessions or cached answers are looked at (CONTRACT §23).
  koa.use(refuseSuspended);
  koa.use(sliceLargeBodies);
  koa.use(cors(config.CORS_ORIGINS));
  // Callers already resolved in front of Koa (not-modified.ts), so that no token is checked twice.
  const callers = new WeakMap<IncomingMessage, RequestCaller>();
  koa.use(identifyCaller(deps.authenticator, callers));
  koa.use(limits.middleware);
  const facadeDeps = {
    schema,
    errors: errorTable,
    execute: graphql.execute,
    signalOf: (ctx: Koa.Context) => clientGone(ctx.res),
    cache: restCache,
    onError: (err: unknown, requestId: string) =>
      log.error({ err, requestId }, 'unexpected error in the REST facade'),
  };
  const facade = createFacade({
    ...facadeDeps,
    guide: guideFor(guideSettings(config, deps.caFile, deps.localCaFile)),
  });
  // What serves other paths (src/mounted.ts) is one step, skipped whole by a request for the facade's paths.
  koa.use((ctx, next) => (facade.owns(ctx.path) ? next() : mounted.middleware(ctx, next)));
  koa.use(facade.middleware);
  // The platform API (CONTRACT §22): a facade of its own under /platform/api, on the default car share's host only;
  // on any other host the path is unknown (404).
  const platform = createFacade({
    ...facadeDeps,
    routes: [platformRoutes],
    prefix: PLATFORM_PREFIX,
    exclude: [],
  });
  koa.use((ctx, next) =>
    (ctx.state.carShare as CarShare | undefined)?.isDefault ? platform.middleware(ctx, next) : next(),
  );
  koa.use((ctx) => {
    if (ctx.status === 404 && ctx.body === undefined)
      edge.sendError(ctx, 'NotFound', `No route for ${ctx.method} ${ctx.path}`);
  });

  return {
    koa,
    callback: () =>
      answeringNotModified(
        {
          facade,
          authenticator: deps.authenticator,
          rateLimiter: limits,
          metrics,
          edge,
          trustProxy: config.TRUST_PROXY,
          defaultCarShare: () => (config.UNKNOWN_HOST === 'reject' ? undefined : deps.carShares.default),
          settled: () => deps.carShares.settled(),
          callers,
          counted,
          onError: (err) => log.error({ err }, 'unexpected error answering a revalidation'),
        },
        koa.callback(),
      ),
    apollo: graphql.apollo,
    contextFor: graphql.contextFor,
    carShareOf: (req) => {
      const forwarded = req.headers['x-forwarded-host'];
      return (
        edge.carShareOf(req.headers.host, Array.isArray(forwarded) ? forwarded[0] : forwarded) ??
        (config.UNKNOWN_HOST === 'reject' ? undefined : deps.carShares.default)
      );
    },
    baseUrlAt: (host) => (typeof host === 'string' ? deps.carShares.byHost(host)?.baseUrl : undefined),
    refusal: renderers.refusal,
    socket: graphql.socket,
    limits: graphql.limits,
    countOperation: operationLimits(limits.actions, config.TRUST_PROXY),
    afterMutation: staleAfter,
    changed: backgroundInvalidation(schema, staleAfter, deps.carShares),
    carShares: deps.carShares,
    async stop() {
      sharedCache?.close();
      await graphql.stop();
      await redis.close();
    },
  };
}
