// CONTRACT §28: /metrics holds a bounded set of series whatever the requests (routes by template, anything else
// `unmatched`); scraping it costs the scraper's address nothing; a client that cuts its body short is a 499.
import { connect as netConnect } from 'node:net';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseMetrics } from '../support/metrics.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

let svc: TestService;
const logs: Record<string, unknown>[] = [];
beforeAll(async () => {
  // Low enough that the junk below is mostly refused with 429 (refusals must be bounded too).
  svc = await startTestService({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000' }, logs });
});
afterAll(async () => {
  await svc?.close();
});

const scrape = async () => {
  const res = await svc.fetch('/metrics');
  expect(res.status).toBe(200);
  return res.text();
};

/** The request series of an exposition: `name{labels}` of every HTTP and rate-limit sample. */
const requestSeries = (text: string): Set<string> =>
  new Set(
    text
      .split('\n')
      .filter((l) => /^(http_request|rate_limit)/.test(l))
      .map((l) => l.slice(0, l.lastIndexOf(' '))),
  );

const requestSamples = (text: string) => parseMetrics(text).filter((s) => s.name === 'http_requests_total');

/** The value of `http_requests_total` for these labels, summed over the others. */
const requestCount = (text: string, labels: Record<string, string>): number =>
  requestSamples(text)
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);

const junk = () => Math.random().toString(36).slice(2);

/** Anonymous junk, 16 at a time: cars by random ids (valid UUIDs and not), bad tokens, paths that are nothing. */
async function sendJunk(count: number): Promise<Set<number>> {
  const statuses = new Set<number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const path = [
        `/api/cars/${crypto.randomUUID()}`,
        `/api/cars/${junk()}`,
        `/nonexistent/${junk()}`,
        `/nonexistent/${crypto.randomUUID()}/${junk()}`,
      ][i % 4]!;
      const headers = i % 8 === 1 ? { Authorization: `Bearer ${junk()}` } : undefined;
      const res = await svc.fetch(path, headers ? { headers } : {});
      await res.arrayBuffer();
      statuses.add(res.status);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return statuses;
}

/** A TLS connection to the service, for requests no HTTP client would make. */
async function rawConnection() {
  const tcp = netConnect({ host: '127.0.0.1', port: Number(new URL(svc.origin).port) });
  const socket = connect({ socket: tcp, servername: 'localhost', ca: svc.service.cert });
  await new Promise<void>((ok, fail) => socket.once('secureConnect', ok).once('error', fail));
  return Object.assign(socket, { tcp });
}

/** Sends headers announcing a 1000-byte body, then 10 bytes, then cuts the connection. */
async function abortBody(path: string): Promise<void> {
  const url = new URL(svc.origin);
  const socket = await rawConnection();
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"Name":"x`,
  );
  // Long enough for the service to start reading the body.
  await new Promise((r) => setTimeout(r, 100));
  socket.destroy();
}

describe('a client that cuts its request body short', () => {
  it.each(['/api/useraccounts', '/graphql'])(
    'on %s is counted as 499, not 500, with no error logged',
    async (path) => {
      const route = path === '/graphql' ? '/graphql' : '/api/useraccounts';
      const before = await scrape();
      const counted = (text: string) => requestCount(text, { route, method: 'POST', status: '499' });
      await abortBody(path);
      const after = await waitFor(
        async () => {
          const text = await scrape();
          return counted(text) > counted(before) ? text : undefined;
        },
        { what: `a 499 on ${route}` },
      );
      expect(counted(after) - counted(before)).toBe(1);
      expect(requestCount(after, { status: '500' })).toBe(0);
      expect(logs.filter((l) => Number(l.level) >= 50)).toEqual([]);
      expect(logs.some((l) => l.msg === 'request' && l.path === path && l.status === 499)).toBe(true);
    },
  );
});

describe('a client that resets its connection mid-answer', () => {
  it('is logged at debug through the JSON log, not printed on stderr', async () => {
    const printed = vi.spyOn(console, 'error');
    try {
      const socket = await rawConnection();
      // Megabytes of JavaScript, which the client stops reading after the first bytes.
      socket.write(`GET /docs/assets/scalar.js HTTP/1.1\r\nHost: ${new URL(svc.origin).host}\r\n\r\n`);
      await new Promise((r) => socket.once('data', r));
      socket.pause();
      // A TCP reset, as a client that crashes or loses its network leaves.
      socket.tcp.resetAndDestroy();
      await waitFor(() => logs.some((l) => l.level === 20 && l.msg === 'client went away or was refused'), {
        what: 'the debug line',
      });
      expect(printed).not.toHaveBeenCalled();
      expect(logs.filter((l) => Number(l.level) >= 50)).toEqual([]);
    } finally {
      printed.mockRestore();
    }
  });
});

describe('/metrics', () => {
  it('is scraped without using up the scraper’s anonymous allowance', async () => {
    const remaining = async () => {
      const res = await svc.fetch('/api/cars');
      await res.arrayBuffer();
      return {
        left: Number(res.headers.get('ratelimit-remaining')),
        reset: Number(res.headers.get('ratelimit-reset')),
      };
    };
    // A window that ends during the scrapes would start the count over: begin in a fresh one if it is nearly out.
    const first = await remaining();
    if (first.reset < 10) await new Promise((r) => setTimeout(r, (first.reset + 1) * 1000));
    const before = await remaining();
    expect(before.left).toBeGreaterThan(1);
    for (let i = 0; i < 100; i++) await scrape();
    const after = await remaining();
    expect(after.left).toBe(before.left - 1);
  });

  it('holds the same series after 5,000 junk requests as after the first ones, each labelled by template', async () => {
    // The first requests make the series (each status the junk gets, 429 once the allowance is used up).
    const early = await sendJunk(1200);
    expect(early).toEqual(new Set([400, 401, 404, 429]));
    const settled = requestSeries(await scrape());
    await sendJunk(3800);
    const text = await scrape();
    expect(requestSeries(text)).toEqual(settled);
    const routes = new Set(requestSamples(text).map((s) => s.labels.route));
    expect(routes).toContain('/api/cars/{Id}');
    expect(routes).toContain('unmatched');
    // Besides the junk's: the routes the other cases here asked for.
    const others = ['/metrics', '/api/cars', '/api/useraccounts', '/graphql', '/docs/assets/scalar.js'];
    for (const route of routes) expect(['/api/cars/{Id}', 'unmatched', ...others]).toContain(route);
    for (const status of ['400', '401', '429'])
      expect(requestCount(text, { route: '/api/cars/{Id}', status })).toBeGreaterThan(0);
    expect(requestCount(text, { route: 'unmatched', status: '404' })).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(100_000);
  }, 120_000);
});
