// More car shares than the default one, for tests of what a request's host selects (CONTRACT §19, §20): a row
// made as the test database's owner (as the platform would make it), announced the way the service announces a
// change, and requests sent to its host over the service's own listener.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { Agent, request } from 'undici';
import { inject } from 'vitest';
import { CAR_SHARE_CHANNEL } from '../../src/carshares/registry.js';
import { waitFor } from './wait.js';

export interface TestCarShare {
  id: string;
  host: string;
  baseUrl: string;
  name: string;
}

/**
 * Adds a car share at `https://<host>:<port>` and waits until the service knows it: its plain-HTTP listener (on
 * `httpPort`), which no rate limit counts, names the car share's address. `limits` is its `Limits` (CONTRACT §20).
 */
export async function addCarShare(opts: {
  host: string;
  port: number;
  httpPort: number;
  name?: string;
  limits?: Record<string, number>;
}): Promise<TestCarShare> {
  const id = randomUUID();
  const name = opts.name ?? `Car share ${opts.host}`;
  const baseUrl = `https://${opts.host}:${opts.port}`;
  const c = new pg.Client({ connectionString: inject('databaseUrl') });
  await c.connect();
  try {
    await c.query(
      'insert into car_share (id, base_url, host, name, limits) values ($1, $2, $3, $4, $5::jsonb)',
      [id, baseUrl, opts.host, name, JSON.stringify(opts.limits ?? {})],
    );
    await c.query('select pg_notify($1, $2)', [CAR_SHARE_CHANNEL, id]);
  } finally {
    await c.end();
  }
  await waitFor(async () => (await plainAtHost(opts.httpPort, opts.host, '/')).text.includes(baseUrl), {
    what: `the service to answer ${opts.host}`,
  });
  return { id, host: opts.host, baseUrl, name };
}

/** Changes a car share's `Limits` and announces it; waits for nothing (the next request may still see the old). */
export async function setLimits(id: string, limits: Record<string, number>): Promise<void> {
  const c = new pg.Client({ connectionString: inject('databaseUrl') });
  await c.connect();
  try {
    await c.query('update car_share set limits = $2::jsonb where id = $1', [id, JSON.stringify(limits)]);
    await c.query('select pg_notify($1, $2)', [CAR_SHARE_CHANNEL, id]);
  } finally {
    await c.end();
  }
}

// The listener's certificate names localhost; another host's certificate is another helper's work (SNI), so
// requests to other hosts do not verify it here.
const lenient = new Agent({ connect: { rejectUnauthorized: false } });

export interface HostReply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A request to the service on `port` (loopback) as addressed to `host` (the `Host` header). */
export async function atHost(
  port: number,
  host: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; token?: string } = {},
): Promise<HostReply> {
  const headers: Record<string, string> = { host, ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (typeof init.body === 'string') body = init.body;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['Content-Type'] ??= 'application/json';
  }
  // undici's request, not fetch: fetch replaces the Host header with the URL's.
  const res = await request(`https://127.0.0.1:${port}${path}`, {
    method: (init.method ?? 'GET') as 'GET',
    headers,
    dispatcher: lenient,
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.body.text();
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers))
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
  let json: unknown;
  if ((h.get('content-type') ?? '').includes('json') && text !== '') json = JSON.parse(text);
  return { status: res.statusCode, headers: h, text, json };
}

/** A plain-HTTP request to the service's refusing listener on `httpPort`, as addressed to `host`. */
export function plainAtHost(httpPort: number, host: string, path: string): Promise<HostReply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: httpPort, path, headers: { host } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, one);
        resolve({ status: res.statusCode ?? 0, headers, text, json: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
