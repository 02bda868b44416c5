// More car shares than the default one, for tests of what a request's host selects (CONTRACT §19, §20): a row
// made as the test database's owner (as the platform would make it), announced the way the service announces a
// change, and requests sent to its host over the service's own listener.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { LookupFunction } from 'node:net';
import { dirname } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { inject } from 'vitest';
import { CAR_SHARE_CHANNEL } from '../../src/carshares/registry.js';
import { localCaCertPath } from '../../src/local-ca.js';
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

// Requests to hosts of no car share (or to PUBLIC_URL's made-up host) get a certificate naming another: they are
// not verified. A car share's own host is, when the caller hands over the certificates to trust (`trustOf`).
const lenient = new Agent({ connect: { rejectUnauthorized: false } });

/** Every name resolves to the service's loopback address (no resolver knows `second.localhost`). */
const loopback = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
  opts?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) as LookupFunction;

/**
 * What verifies every car share's host on a service: its `localhost` certificate and the local CA that issues the
 * others' at their first handshake (CONTRACT §19), made once a car share has another host.
 */
export async function trustOf(service: { cert: string; certPath: string }): Promise<Agent> {
  const caFile = localCaCertPath(dirname(dirname(service.certPath)));
  await waitFor(() => existsSync(caFile), { what: 'the local CA' });
  return new Agent({ connect: { ca: [service.cert, readFileSync(caFile, 'utf8')], lookup: loopback } });
}

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
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    token?: string;
    /** Verifies the host's certificate (the URL names the host, so the TLS handshake does too). */
    trusted?: Agent;
  } = {},
): Promise<HostReply> {
  const headers: Record<string, string> = { ...(init.trusted ? {} : { host }), ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (typeof init.body === 'string') body = init.body;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['Content-Type'] ??= 'application/json';
  }
  // undici's request, not fetch: fetch replaces the Host header with the URL's.
  const origin = init.trusted ? `https://${host}:${port}` : `https://127.0.0.1:${port}`;
  const res = await request(`${origin}${path}`, {
    method: (init.method ?? 'GET') as 'GET',
    headers,
    dispatcher: init.trusted ?? lenient,
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
        // The refusal comes in the format the request negotiated: JSON unless it asked for another.
        const json =
          text && (headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
        resolve({ status: res.statusCode ?? 0, headers, text, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
