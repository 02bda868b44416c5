// The operator's probes: liveness, readiness (database reachable, migrations applied) and Prometheus metrics.
import Router from '@koa/router';
import { migrationsPending } from '../db/migrate.js';
import type { Orm } from '../db/orm.js';
import { deploymentSql } from '../db/scope.js';
import type { Metrics } from '../metrics/metrics.js';

export function healthRoutes(deps: { orm: Orm; metrics: Metrics; metricsToken?: string | undefined }) {
  const router = new Router();
  router.get('/metrics', deps.metrics.handler(deps.metricsToken));
  router.get('/healthz', (ctx) => {
    ctx.body = { Status: 'Ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      // Deployment work (src/db/scope.ts): whether the database answers, as the DATABASE_URL user; no car share's
      // rows are read, and the probe names no car share (CONTRACT §19).
      await deploymentSql(deps.orm, 'select 1');
      const pending = await migrationsPending(deps.orm);
      ctx.status = pending === 0 ? 200 : 503;
      ctx.body = { Status: pending === 0 ? 'Ready' : 'MigrationsPending', PendingMigrations: pending };
    } catch {
      ctx.status = 503;
      ctx.body = { Status: 'DatabaseUnreachable' };
    }
  });
  return router;
}
