// What the service serves besides the REST facade, mounted in order between the rate limits and the facade: the
// landing page, /docs, GraphiQL, health, /graphql, the authorization servers, the dashboard and the platform console.
// Each serves paths of its own, so they are composed into one step that a request for the facade's paths skips whole
// (src/app.ts), instead of passing a dozen layers that each hand it on.
import type Router from '@koa/router';
import type Koa from 'koa';
import compose from 'koa-compose';
import { createDashboard } from './dashboard/server.js';
import type { Orm } from './db/orm.js';
import type { GraphQLEndpoint } from './graphql/endpoint.js';
import { healthRoutes } from './http/health.routes.js';
import type { Metrics } from './metrics/metrics.js';
import { type AuthServer, mountAuthServer } from './oauth/server.js';
import { createPlatformConsole } from './platform-console/server.js';
import type { Clock } from './shared/clock.js';
import type { Logger } from './shared/log.js';
import { docs } from './web/docs.js';
import { graphiql } from './web/graphiql.js';
import { landing } from './web/landing.js';

export interface MountedDeps {
  orm: Orm;
  metrics: Metrics;
  metricsToken?: string | undefined;
  graphql: Pick<GraphQLEndpoint, 'router' | 'executeWithToken'>;
  /** The authorization servers (one per car share), with the dashboard and console signed in through them. */
  oauth?: Pick<AuthServer, 'siteFor' | 'interactions'> | undefined;
  caFile?: string | undefined;
  localCaFile?: string | undefined;
  clock: Clock;
  log: Logger;
}

/** The composed step, and its routers (for the route label of a request refused before it reached them). */
export async function mountedBesideFacade(
  deps: MountedDeps,
): Promise<{ middleware: Koa.Middleware; routers: Router[] }> {
  const servers: Koa.Middleware[] = [];
  const routers: Router[] = [];
  const mount = { use: (middleware: Koa.Middleware) => servers.push(middleware) };
  const routes = (router: Router) => {
    routers.push(router);
    // The router's middleware asks for its own context type, which it adds itself.
    servers.push(router.routes() as Koa.Middleware, router.allowedMethods() as Koa.Middleware);
  };
  mount.use(landing());
  mount.use(docs());
  mount.use(graphiql());
  routes(healthRoutes({ orm: deps.orm, metrics: deps.metrics, metricsToken: deps.metricsToken }));
  routes(deps.graphql.router);
  if (deps.oauth) {
    routers.push(deps.oauth.interactions);
    mountAuthServer(mount, deps.oauth);
    // The operators dashboard of each car share, signed in through its authorization server as its first-party
    // client.
    const dashboard = {
      siteFor: deps.oauth.siteFor,
      caFile: deps.caFile,
      localCaFile: deps.localCaFile,
      clock: deps.clock,
      log: deps.log,
      execute: deps.graphql.executeWithToken,
    };
    mount.use(await createDashboard(dashboard));
    // The platform console (CONTRACT §22), before the platform API it shares /platform with (it leaves /platform/api).
    mount.use(await createPlatformConsole(dashboard));
  }
  return { middleware: compose(servers), routers };
}
