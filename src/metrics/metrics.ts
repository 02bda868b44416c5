// Prometheus metrics: one registry per running app (no module-level state), scraped at /metrics.

import { timingSafeEqual } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import type Koa from 'koa';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { unauthorized } from '../shared/errors.js';
import { firstNames, methodLabel, routeLabel, statusLabel, type TemplateOf } from './labels.js';

export interface Metrics {
  registry: Registry;
  /**
   * Counts and times every request, labelled by route template (labels.ts), never by raw path; `templateOf` names
   * the routes of requests refused before any router saw them.
   */
  middleware(templateOf?: TemplateOf): Koa.Middleware;
  /**
   * The same for a request answered in front of Koa: `arrived` when it comes in, then `answered` (started at
   * `performance.now()`), or `passedOn` when it goes on to Koa, whose middleware counts it from there.
   */
  arrived(): void;
  /** `route` is a template (`/api/cars/{Id}`); method and status are reduced to their closed sets here. */
  answered(route: string, method: string, status: number, startedMs: number): void;
  passedOn(): void;
  graphqlPlugin: ApolloServerPlugin;
  /** One GraphQL operation run outside Apollo (graphql-ws), counted as the plugin counts Apollo's. */
  operation(type: string, name: string | null | undefined, failed: boolean): void;
  /** The /metrics handler; with a token configured, callers must present it as a bearer token. */
  handler(token: string | undefined): Koa.Middleware;
  /** For subsystems to publish their own figures (webhook outcomes, queue depth…) on the same registry. */
  counter(name: string, help: string, labelNames?: string[]): Counter;
  gauge(name: string, help: string, collect: () => Promise<number> | number): Gauge;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and method',
    labelNames: ['route', 'method'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 by the rate limiter',
    labelNames: ['route'],
    registers: [registry],
  });
  // What a stopping instance still has to finish; also how a test knows its requests have arrived.
  // A plain number read at scrape time: two additions per request instead of two label look-ups.
  let inFlight = 0;
  new Gauge({
    name: 'http_requests_in_flight',
    help: 'HTTP requests received and not yet answered',
    registers: [registry],
    collect() {
      this.set(inFlight);
    },
  });
  const operations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations by type, name and outcome',
    labelNames: ['type', 'name', 'outcome'],
    registers: [registry],
  });

  // Operation names are the client's to choose: a closed set of the first ones seen (labels.ts).
  const operationName = firstNames(200);
  const operation = (type: string, name: string | null | undefined, failed: boolean) =>
    operations.inc({
      type,
      name: operationName(name ?? 'anonymous'),
      outcome: failed ? 'error' : 'success',
    });

  const byRequest = new Map<
    string,
    { count: { inc(): void }; latency: { observe(seconds: number): void } }
  >();

  const answered = (route: string, rawMethod: string, status: number, startedMs: number) => {
    inFlight -= 1;
    const method = methodLabel(rawMethod);
    const key = `${route} ${method} ${status}`;
    let series = byRequest.get(key);
    if (!series) {
      // Label sets are hashed once, not on every request: the children are kept (bounded, emptied when full).
      if (byRequest.size >= 2000) byRequest.clear();
      series = {
        count: requests.labels({ route, method, status: statusLabel(status) }),
        latency: latency.labels({ route, method }),
      };
      byRequest.set(key, series);
    }
    series.count.inc();
    series.latency.observe((performance.now() - startedMs) / 1000);
    if (status === 429) rateLimited.inc({ route });
  };

  return {
    registry,
    arrived() {
      inFlight += 1;
    },
    answered,
    passedOn() {
      inFlight -= 1;
    },
    middleware: (templateOf) => async (ctx, next) => {
      const started = performance.now();
      inFlight += 1;
      try {
        await next();
      } finally {
        answered(routeLabel(ctx, templateOf), ctx.method, ctx.status, started);
      }
    },
    operation,
    graphqlPlugin: {
      async requestDidStart() {
        return {
          async willSendResponse(rc) {
            const body = rc.response.body;
            const failed = body.kind === 'single' && (body.singleResult.errors?.length ?? 0) > 0;
            operation(rc.operation?.operation ?? 'unknown', rc.operationName, failed);
          },
        };
      },
    },
    handler(token) {
      return async (ctx) => {
        if (token) {
          const given = Buffer.from(ctx.get('Authorization'));
          const wanted = Buffer.from(`Bearer ${token}`);
          // The edge answers it (status, challenge, ResponseStatus with its help link) like any other 401.
          if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
            throw unauthorized('A metrics token is required');
        }
        ctx.type = registry.contentType;
        ctx.body = await registry.metrics();
      };
    },
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers: [registry] }),
    gauge: (name, help, collect) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          this.set(await collect());
        },
      }),
  };
}
