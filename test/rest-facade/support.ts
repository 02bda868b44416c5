// The REST facade over real HTTPS on the test database: a service with a test Authenticator (token → Actor),
// a GraphQL harness on the same database for factories and comparisons, and SQL statement counting.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import type { Actor } from '../../src/access/actor.js';
import { type Authenticator, bearerToken } from '../../src/access/authenticate.js';
import { loadConfig } from '../../src/config.js';
import { openOrm } from '../../src/db/orm.js';
import { entities } from '../../src/modules.js';
import { type Service, type ServiceOptions, startService } from '../../src/service.js';
import { unauthorized } from '../../src/shared/errors.js';
import { anonymous } from '../support/actors.js';
import { createHarness, type Harness } from '../support/harness.js';
import { isTransactionControl } from '../support/scope.js';

export const PUBLIC_URL = 'https://carshare.test';

/** A valid car as a REST client posts it to /api/cars; tests override the fields they are about. */
export const REST_CAR = {
  Make: 'Toyota',
  Model: 'Corolla',
  Year: 2022,
  Transmission: 'Automatic',
  Seats: 5,
  LicensePlate: { Jurisdiction: 'CA', Number: '7ABC123' },
  HomeLocation: { Address: '1 Market St', Latitude: 37.79, Longitude: -122.39 },
  HourlyRate: { Amount: '12.50', Currency: 'USD' },
};

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: any;
}

export interface CallOptions {
  token?: string | undefined;
  /** A JSON body (objects) or a raw body (strings, with your own Content-Type). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RestEnv {
  h: Harness;
  service: Service;
  origin: string;
  /** SQL statements the service ran since the last `sql.length = 0`. */
  sql: string[];
  /** A bearer token standing for this actor. */
  tokenFor(actor: Actor): string;
  /** How many times the service has asked the authenticator about a token so far. */
  tokenChecks(): number;
  /** For each token check so far: whether the request had already passed the listening connection's barrier. */
  tokenChecksHeard(): boolean[];
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

/** How a test's service differs from the default: background sweeps on, a statement run in place of another. */
export interface RestOptions {
  /** Background sweeps on, every this many milliseconds, on the test clock. */
  sweepEveryMs?: number;
  /** Runs another statement in place of the one given (to hold a read where a test wants it). */
  rewrite?: (sql: string) => string;
  /** Webhook delivery on, with these settings (off otherwise). */
  webhooks?: Exclude<ServiceOptions['webhooks'], false | undefined>;
  /** An execution gate with tiny lanes (to overload it). */
  gate?: ServiceOptions['gate'];
}

export async function startRest(env: Record<string, string> = {}, opts: RestOptions = {}): Promise<RestEnv> {
  const h = await createHarness();
  const tokens = new Map<string, Actor>();
  let checks = 0;
  const heards: boolean[] = [];
  const authenticator: Authenticator = {
    async actorFor(authorization, _carShare, heard) {
      checks += 1;
      heards.push(heard === true);
      const token = bearerToken(authorization);
      if (token === undefined) return anonymous;
      const actor = tokens.get(token);
      if (!actor) throw unauthorized('The access token is not valid');
      return actor;
    },
  };
  const sql: string[] = [];
  const url = inject('databaseUrl');
  // The outbox relay takes events in the background on the same pool: its statements (the only ones that look
  // for unpublished events) are not the request's.
  const relayed = /"published_date_utc" is null/;
  const orm = await openOrm(url, entities as never, {
    pool: 5,
    onQuery: (s) => {
      if (!relayed.test(s) && !isTransactionControl(s)) sql.push(s);
    },
    rewrite: opts.rewrite,
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'carshare-rest-'));
  const config = loadConfig({
    PORT: '0',
    HTTP_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: url,
    PUBLIC_URL,
    LOG_LEVEL: 'silent',
    OPS_EMAIL: 'ops@example.com',
    OPS_PASSWORD: 'operator passphrase for tests',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000',
    ...env,
  });
  const service = await startService({
    config,
    log: pino({ level: 'silent' }),
    ...(opts.sweepEveryMs ? { timers: true, sweepEveryMs: opts.sweepEveryMs } : { timers: false }),
    webhooks: opts.webhooks ?? false,
    clock: h.clock,
    authenticator,
    db: { orm, url, embedded: null, close: () => orm.close(true) },
    ...(opts.gate ? { gate: opts.gate } : {}),
  });
  const agent = new Agent({ connect: { ca: service.cert } });
  const origin = `https://localhost:${service.port}`;
  return {
    h,
    service,
    origin,
    sql,
    tokenChecks: () => checks,
    tokenChecksHeard: () => [...heards],
    tokenFor(actor) {
      const t = randomBytes(12).toString('hex');
      tokens.set(t, actor);
      return t;
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
      let body: string | undefined;
      if (typeof opts.body === 'string') body = opts.body;
      else if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const res = await fetch(`${origin}${path}`, {
        method,
        headers,
        dispatcher: agent,
        ...(body === undefined ? {} : { body }),
      });
      const text = await res.text();
      let json: unknown;
      if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') json = JSON.parse(text);
      return { status: res.status, headers: res.headers, text, json };
    },
    async close() {
      await service.stop();
      await orm.close(true);
      await agent.close();
      await h.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The REST environment of a test file (or `describe`): started on an emptied database before the first test,
 * emptied again before each test when `resetEach` is set, stopped after the last. Call it before the hooks that
 * use it. The returned object stands for the environment and reaches it on each use.
 */
export function useRest(
  opts: { env?: Record<string, string>; resetEach?: boolean } & RestOptions = {},
): RestEnv {
  let current: RestEnv | undefined;
  const the = (): RestEnv => {
    if (!current) throw new Error('the REST environment exists from beforeAll to afterAll only');
    return current;
  };
  beforeAll(async () => {
    current = await startRest(opts.env, opts);
    await current.h.reset();
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  if (opts.resetEach) beforeEach(() => the().h.reset());
  return {
    get h() {
      return the().h;
    },
    get service() {
      return the().service;
    },
    get origin() {
      return the().origin;
    },
    get sql() {
      return the().sql;
    },
    tokenFor: (actor) => the().tokenFor(actor),
    tokenChecks: () => the().tokenChecks(),
    tokenChecksHeard: () => the().tokenChecksHeard(),
    call: (method, path, callOpts) => the().call(method, path, callOpts),
    close: () => the().close(),
  };
}

/** Every object key at every depth starts with a capital letter. */
export function pascalDeep(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(pascalDeep);
  if (v !== null && typeof v === 'object')
    return Object.entries(v).every(([k, x]) => /^[A-Z]/.test(k) && pascalDeep(x));
  return true;
}

/** GraphQL data in REST terms, as the facade should show it: PascalCase keys, nulls omitted. */
export function restOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(restOf);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k.charAt(0).toUpperCase() + k.slice(1), restOf(x)]),
    );
  return v;
}
