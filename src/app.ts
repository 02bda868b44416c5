// Composition root: the Koa application as a list of the pieces it mounts, in request order. Each piece is built
// by the module that owns it; this file only decides the order and hands each what it needs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import type Router from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import Koa from 'koa';
import { memoryCache, redisCache } from '../rest-facade/cache.js';
import { createFacade } from '../rest-facade/facade.js';
import { staleAfterMutations } from '../rest-facade/invalidation.js';
import { rateLimiter } from '../rest-facade/ratelimit.js';
import type { Authenticator } from './access/authenticate.js';
import type { Config } from './config.js';
import { createDashboard } from './dashboard/server.js';
import type { Orm } from './db/orm.js';
import { createEdge } from './edge.js';
import type { Context } from './graphql/context.js';
import { createGraphQL } from './graphql/endpoint.js';
import type { GraphQLLimits } from './graphql/limits.js';
import { identifyCaller, type RequestCaller } from './http/caller.js';
import { healthRoutes } from './http/health.routes.js';
import { sliceLargeBodies } from './http/large-bodies.js';
import { rateLimitSettings } from './http/rate-limits.js';
import { sharedRedis } from './http/redis.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { answeringNotModified } from './not-modified.js';
import { oauthTooManyRequests } from './oauth/edges.js';
import { type AuthServer, mountAuthServer, OAUTH_PATH } from './oauth/server.js';
import type { Clock } from './shared/clock.js';
import { errorTable } from './shared/errors.js';
import type { Logger } from './shared/log.js';
import { cors } from './web/cors.js';
import { docs } from './web/docs.js';
import { graphiql } from './web/graphiql.js';
import { guide, guideSettings } from './web/guide.js';
import { landing } from './web/landing.js';

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
        | 'HEAP_CEILING_MB'
      >
    >;
  orm: Orm;
  schema: GraphQLSchema;
  log: Logger;
  clock: Clock;
  authenticator: Authenticator;
  /** The authorization server, mounted at /api/oauth when given. */
  oauth?: Pick<AuthServer, 'provider' | 'cookieKeys' | 'interactions'>;
  /** Prometheus metrics; a fresh registry when not given. */
  metrics?: Metrics;
  metricsToken?: string | undefined;
  /** The self-signed certificate clients must trust, cited in ready-made curl commands; none for a real one. */
  caFile?: string | undefined;
}

export interface App {
  koa: Koa;
  /** The HTTPS listener's request handler: revalidations answered from the REST cache, everything else by Koa. */
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  apollo: ApolloServer<Context>;
  /** Builds a GraphQL context for a raw Authorization header (graphql-ws, in-process callers). */
  contextFor(authorization: string | undefined, requestId?: string): Promise<Context>;
  /** The depth and cost limits of CONTRACT §13, for the transports outside Koa (graphql-ws). */
  limits: GraphQLLimits;
  stop(): Promise<void>;
}

export async function createApp(deps: AppDeps): Promise<App> {
  const { config, orm, schema, log, clock } = deps;
  const metrics = deps.metrics ?? createMetrics();
  // Shared by instances through Redis when configured: rate-limit counters and the REST cache's versions.
  const redis = await sharedRedis(config.REDIS_URL, log);
  const restCache = redis.client ? redisCache(redis.client, redis.trouble) : memoryCache();
  const graphql = await createGraphQL({
    schema,
    orm,
    clock,
    log,
    metrics,
    authenticator: deps.authenticator,
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxCost: config.GRAPHQL_MAX_COST,
    heapCeilingMb: config.HEAP_CEILING_MB,
    // Every write, through /graphql, the facade or the dashboard, makes the REST facade's cached GETs stale here.
    afterMutation: staleAfterMutations(schema, restCache),
  });
  const edge = createEdge({ log, trustProxy: config.TRUST_PROXY, publicUrl: config.PUBLIC_URL });

  const koa = new Koa({ proxy: config.TRUST_PROXY });
  const routes = (router: Router) => koa.use(router.routes()).use(router.allowedMethods());
  koa.use(edge.requestLog);
  koa.use(metrics.middleware);
  koa.use(edge.httpsOnly);
  koa.use(edge.errors);
  koa.use(sliceLargeBodies);
  koa.use(cors(config.CORS_ORIGINS));
  // Callers already resolved in front of Koa (not-modified.ts), so that no token is checked twice.
  const callers = new WeakMap<IncomingMessage, RequestCaller>();
  koa.use(identifyCaller(deps.authenticator, callers));
  const limits = rateLimiter({
    ...rateLimitSettings(config),
    redis: redis.client,
    onStoreError: redis.trouble,
    publicUrl: config.PUBLIC_URL,
    errors: errorTable,
    refuse: oauthTooManyRequests(OAUTH_PATH),
  });
  koa.use(limits.middleware);
  koa.use(landing(config.PUBLIC_URL));
  koa.use(docs());
  koa.use(graphiql());
  routes(healthRoutes({ orm, metrics, metricsToken: deps.metricsToken }));
  routes(graphql.router);
  if (deps.oauth) {
    mountAuthServer(koa, deps.oauth);
    // The operators dashboard, signed in through the authorization server as its first-party client.
    const dashboard = { orm, publicUrl: config.PUBLIC_URL, caFile: deps.caFile, clock, log };
    koa.use(await createDashboard({ ...dashboard, execute: graphql.executeWithToken }));
  }
  const facade = createFacade({
    schema,
    errors: errorTable,
    publicUrl: config.PUBLIC_URL,
    execute: graphql.execute,
    cache: restCache,
    onError: (err, requestId) => log.error({ err, requestId }, 'unexpected error in the REST facade'),
    guide: guide(guideSettings(config, deps.caFile)),
  });
  koa.use(facade.middleware);
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
          callers,
          onError: (err) => log.error({ err }, 'unexpected error answering a revalidation'),
        },
        koa.callback(),
      ),
    apollo: graphql.apollo,
    contextFor: graphql.contextFor,
    limits: graphql.limits,
    async stop() {
      await graphql.stop();
      await redis.close();
    },
  };
}
