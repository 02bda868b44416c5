// Composition root: builds the Koa application with GraphQL, health endpoints, request ids and logging.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { ApolloServer } from '@apollo/server';
import { koaMiddleware } from '@as-integrations/koa';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import { Redis } from 'ioredis';
import Koa from 'koa';
import mount from 'koa-mount';
import { memoryCache, redisCache } from '../rest-facade/cache.js';
import { createFacade } from '../rest-facade/facade.js';
import { rateLimits } from '../rest-facade/ratelimit.js';
import type { Actor } from './access/actor.js';
import type { Authenticator } from './access/authenticate.js';
import { asHttpError } from './access/challenge.js';
import type { Config } from './config.js';
import { createDashboard } from './dashboard/server.js';
import { migrationsPending } from './db/migrate.js';
import type { Orm } from './db/orm.js';
import { createEdge } from './edge.js';
import { startApollo } from './graphql/apollo.js';
import { CompiledDocuments } from './graphql/compiled.js';
import { type Context, createContext } from './graphql/context.js';
import { createExecutionGate, gateSizes } from './graphql/execution-gate.js';
import { inProcessExecutor } from './graphql/in-process.js';
import { graphqlLimits } from './graphql/limits.guard.js';
import type { GraphQLLimits } from './graphql/limits.js';
import { spliceHeldText } from './graphql/response-pieces.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { discoveryScopes, oauthTooManyRequests } from './oauth/edges.js';
import { oauthGuard } from './oauth/guard.js';
import { type AuthServer, OAUTH_PATH } from './oauth/server.js';
import type { Clock } from './shared/clock.js';
import { errorTable } from './shared/errors.js';
import type { Logger } from './shared/log.js';
import { cors } from './web/cors.js';
import { docs } from './web/docs.js';
import { graphiql } from './web/graphiql.js';
import { guide } from './web/guide.js';
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
  apollo: ApolloServer<Context>;
  /** Builds a GraphQL context for a raw Authorization header (graphql-ws, in-process callers). */
  contextFor(authorization: string | undefined, requestId?: string): Promise<Context>;
  /** The depth and cost limits of CONTRACT §13, for the transports outside Koa (graphql-ws). */
  limits: GraphQLLimits;
  stop(): Promise<void>;
}

/** The caller as the REST facade keys it: rate limits per subject, cached GETs per subject and rights. */
const callerOf = (a: Actor) => ({
  subject: a.id ? `${a.kind}:${a.id}` : null,
  key: `${a.kind}:${a.id ?? ''}:${a.roles.join(' ')}:${a.scopes.join(' ')}`,
});

export async function createApp(deps: AppDeps): Promise<App> {
  const { orm, log, clock, authenticator } = deps;
  const metrics = deps.metrics ?? createMetrics();

  // One token check per HTTP request, however many layers ask (rate limiter, REST cache key, GraphQL context).
  // Outside a request (graphql-ws, in-process callers) every call checks afresh.
  const requestActors = new AsyncLocalStorage<Map<string, Promise<Actor>>>();
  const actorFor = (authorization: string | undefined): Promise<Actor> => {
    const memo = requestActors.getStore();
    if (!memo) return authenticator.actorFor(authorization);
    const key = authorization ?? '';
    let actor = memo.get(key);
    if (!actor) {
      actor = authenticator.actorFor(authorization);
      memo.set(key, actor);
    }
    return actor;
  };

  const contextFor = async (
    authorization: string | undefined,
    requestId: string = randomUUID(),
  ): Promise<Context> => {
    const actor = await actorFor(authorization);
    return createContext({ em: orm.em.fork(), actor, clock, requestId, log: log.child({ requestId }) });
  };

  // Every document runs compiled (graphql-jit), compiled once per document: /graphql clients through Apollo's
  // gateway hook, the REST facade's reads directly (below).
  const compiled = new CompiledDocuments(deps.schema);
  const limits: GraphQLLimits = {
    maxDepth: deps.config.GRAPHQL_MAX_DEPTH ?? 12,
    maxCost: deps.config.GRAPHQL_MAX_COST ?? 50_000,
  };
  // Single objects and short pages run at once; pages and larger executions queue for budgets of their own
  // (README Decisions: the limits and why).
  const gate = createExecutionGate(gateSizes(limits.maxCost));

  const apollo = await startApollo({
    schema: deps.schema,
    compiled,
    limits,
    gate,
    metrics,
    // A mutation through GraphQL (the dashboard, internal apps) makes the REST facade's cached GETs stale too.
    afterMutation: (fields) => facade.invalidateAfter(fields),
  });

  const koa = new Koa({ proxy: deps.config.TRUST_PROXY });
  koa.use((_ctx, next) => requestActors.run(new Map(), next));

  const edge = createEdge({ log, trustProxy: deps.config.TRUST_PROXY });
  koa.use(edge.requestLog);
  koa.use(metrics.middleware);
  koa.use(edge.httpsOnly);
  koa.use(edge.errors);
  koa.use(cors(deps.config.CORS_ORIGINS));

  // Shared by instances through Redis when configured: rate-limit counters and REST cache invalidation.
  // A command fails after one reconnection attempt instead of waiting in a queue: while Redis is down, rate limits
  // and the REST cache step aside (fail open) rather than hold every request.
  const redis = deps.config.REDIS_URL
    ? new Redis(deps.config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 })
    : undefined;
  const redisTrouble = (err: unknown) =>
    log.warn({ err }, 'redis unavailable: rate limits and REST cache bypassed');
  redis?.on('error', redisTrouble);
  const identify = async (authorization: string | undefined) => callerOf(await actorFor(authorization));
  koa.use(
    rateLimits({
      perMinute: deps.config.RATE_LIMIT_PER_MINUTE ?? 600,
      anonymousPerMinute: deps.config.RATE_LIMIT_ANONYMOUS_PER_MINUTE ?? 60,
      authPerMinute: deps.config.RATE_LIMIT_AUTH_PER_MINUTE ?? 10,
      redis,
      identify,
      publicUrl: deps.config.PUBLIC_URL,
      errors: errorTable,
      onStoreError: redisTrouble,
      refuse: oauthTooManyRequests(OAUTH_PATH),
    }),
  );

  koa.use(landing(deps.config.PUBLIC_URL));
  koa.use(docs());
  koa.use(graphiql());

  const router = new Router();
  router.get('/metrics', metrics.handler(deps.metricsToken));
  router.get('/healthz', (ctx) => {
    ctx.body = { Status: 'Ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      await orm.em.fork().getConnection().execute('select 1');
      const pending = await migrationsPending(orm);
      ctx.status = pending === 0 ? 200 : 503;
      ctx.body = { Status: pending === 0 ? 'Ready' : 'MigrationsPending', PendingMigrations: pending };
    } catch {
      ctx.status = 503;
      ctx.body = { Status: 'DatabaseUnreachable' };
    }
  });
  const graphql = koaMiddleware(apollo, {
    // A bad token is an HTTP 401 with its RFC 6750 challenge, not a 500.
    context: async ({ ctx }) =>
      contextFor(ctx.get('Authorization') || undefined, ctx.state.requestId as string).catch((e) => {
        throw asHttpError(e);
      }),
  });
  router.all(
    '/graphql',
    bodyParser({ jsonLimit: '1mb', enableTypes: ['json'] }),
    graphqlLimits(deps.schema, limits),
    spliceHeldText,
    graphql as unknown as Koa.Middleware,
  );
  koa.use(router.routes()).use(router.allowedMethods());

  // The authorization server: its sign-in and consent pages, then oidc-provider, which writes its cookies through
  // this app's context and so needs the same keys.
  if (deps.oauth) {
    koa.keys = deps.oauth.cookieKeys;
    koa.use(oauthGuard(OAUTH_PATH));
    koa.use(discoveryScopes(OAUTH_PATH));
    koa.use(deps.oauth.interactions.routes());
    koa.use(mount(OAUTH_PATH, deps.oauth.provider));
  }

  // GraphQL clients living in this process (the REST facade, the dashboard): same execution and context.
  const execute = inProcessExecutor({ schema: deps.schema, compiled, gate, apollo, contextFor });

  // The operators dashboard, signed in through the authorization server above as its first-party client.
  if (deps.oauth)
    koa.use(
      await createDashboard({
        orm,
        publicUrl: deps.config.PUBLIC_URL,
        caFile: deps.caFile,
        clock,
        log,
        execute,
      }),
    );

  // The REST facade at /api (not /api/oauth): same Apollo execution and context as /graphql.
  const facade = createFacade({
    schema: deps.schema,
    errors: errorTable,
    publicUrl: deps.config.PUBLIC_URL,
    execute,
    identify,
    cache: redis ? redisCache(redis, redisTrouble) : memoryCache(),
    onError: (err, requestId) => log.error({ err, requestId }, 'unexpected error in the REST facade'),
    guide: guide({
      publicUrl: deps.config.PUBLIC_URL,
      caFile: deps.caFile,
      accessTokenSeconds: deps.config.ACCESS_TOKEN_TTL_SECONDS ?? 900,
      refreshTokenSeconds: deps.config.REFRESH_TOKEN_TTL_SECONDS ?? 1_209_600,
      perMinute: deps.config.RATE_LIMIT_PER_MINUTE ?? 600,
      anonymousPerMinute: deps.config.RATE_LIMIT_ANONYMOUS_PER_MINUTE ?? 60,
      authPerMinute: deps.config.RATE_LIMIT_AUTH_PER_MINUTE ?? 10,
    }),
  });
  koa.use(facade.middleware);

  koa.use((ctx) => {
    if (ctx.status === 404 && ctx.body === undefined)
      edge.sendError(ctx, 'NotFound', `No route for ${ctx.method} ${ctx.path}`);
  });

  return {
    koa,
    apollo,
    contextFor,
    limits,
    async stop() {
      await apollo.stop();
      await redis?.quit();
    },
  };
}
