// /metrics: Prometheus text whose counters move with the traffic; a token guards it when configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

let open: TestService;
let guarded: TestService;
beforeAll(async () => {
  open = await startTestService();
  // Guarded, and without malloc trims (MALLOC_TRIM_MS=0).
  guarded = await startTestService({ env: { METRICS_TOKEN: 'scrape-secret', MALLOC_TRIM_MS: '0' } });
});
afterAll(async () => {
  await open.close();
  await guarded.close();
});

/** The value of one sample line, or 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf('}'));
    const got = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('/metrics', () => {
  it('parses as Prometheus text, and its counters move with the traffic made', async () => {
    const before = await (await open.fetch('/metrics')).text();
    for (let i = 0; i < 3; i++) await open.fetch('/healthz');
    await open.fetch(`/nowhere/${crypto.randomUUID()}`);
    await open.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query Ping { _ping }' }),
    });
    const res = await open.fetch('/metrics');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const after = await res.text();
    // Every line is a comment or `name{labels} value`.
    for (const line of after.split('\n').filter(Boolean))
      expect(line).toMatch(
        /^(# (HELP|TYPE) \w+ .*|[a-zA-Z_:][\w:]*(\{[^}]*\})? -?[\d.e+-]+|[a-zA-Z_:][\w:]*(\{[^}]*\})? (NaN|Nan|[+-]Inf))$/,
      );
    const healthz = { route: '/healthz', method: 'GET', status: '200' };
    expect(
      sample(after, 'http_requests_total', healthz) - sample(before, 'http_requests_total', healthz),
    ).toBe(3);
    expect(
      sample(after, 'http_requests_total', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(after).not.toMatch(/route="\/nowhere/);
    expect(
      sample(after, 'graphql_operations_total', { type: 'query', name: 'Ping', outcome: 'success' }),
    ).toBe(1);
    expect(
      sample(after, 'http_request_duration_seconds_count', { route: '/healthz', method: 'GET' }),
    ).toBeGreaterThanOrEqual(3);
  });

  it('publishes the quiet seconds in which freed malloc memory went back to the system, unless turned off', async () => {
    // When trims happen is test/unit/malloc-trim.test.ts's; here, that the service runs them and says so.
    expect(await (await open.fetch('/metrics')).text()).toMatch(/^process_malloc_trims_total \d+$/m);
    const off = await (
      await guarded.fetch('/metrics', { headers: { Authorization: 'Bearer scrape-secret' } })
    ).text();
    expect(off).toContain('# TYPE http_requests_total counter');
    expect(off).not.toContain('process_malloc_trims_total');
  });

  it('asks for the bearer token when METRICS_TOKEN is set', async () => {
    const refused = await guarded.fetch('/metrics');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="carshare"');
    expect(
      (await guarded.fetch('/metrics', { headers: { Authorization: 'Bearer wrong-secret!' } })).status,
    ).toBe(401);
    const ok = await guarded.fetch('/metrics', { headers: { Authorization: 'Bearer scrape-secret' } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# TYPE http_requests_total counter');
  });
});
