// The database connection pool on /metrics: open, idle and waiting, so pool saturation shows before latency does.
import type { Pool } from 'pg';
import type { Metrics } from '../metrics/metrics.js';
import type { Orm } from './orm.js';

export function watchPool(orm: Orm, metrics: Pick<Metrics, 'gauge'>): void {
  const pool = () => orm.driver.getConnection().getNativeClient() as Promise<Pool>;
  metrics.gauge(
    'db_pool_connections',
    "Open connections in this instance's database pool",
    async () => (await pool()).totalCount,
  );
  metrics.gauge(
    'db_pool_idle_connections',
    'Open connections not running a query',
    async () => (await pool()).idleCount,
  );
  metrics.gauge(
    'db_pool_waiting_queries',
    'Queries waiting for a free connection (the pool is saturated while this stays above 0)',
    async () => (await pool()).waitingCount,
  );
  metrics.gauge('db_pool_max_connections', 'The pool size', () => orm.config.get('pool').max ?? 10);
}
