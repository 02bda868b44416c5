// The platform API over HTTPS (CONTRACT §22): a caller holding the scope `platform` in the default car share, and
// requests to any car share's host on the one loopback service.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { Actor } from '../../src/access/actor.js';
import { PUBLIC_URL, type RestEnv } from '../rest-facade/support.js';
import { atHost } from '../support/car-shares.js';

export const DEFAULT_HOST = new URL(PUBLIC_URL).host;

/** A person with role and scope `platform` (and nothing else), as the default car share's token would carry. */
export const platformUser = (): Actor =>
  ({ kind: 'user', id: randomUUID(), roles: ['user', 'platform'], scopes: ['platform'] }) as unknown as Actor;

/** A client application of the default car share allowed `platform`, through client credentials. */
export const platformClient = (): Actor =>
  ({ kind: 'clientapplication', id: randomUUID(), roles: [], scopes: ['platform'] }) as unknown as Actor;

/** A request to `host` on the service. */
export const at = (
  env: RestEnv,
  host: string,
  method: string,
  path: string,
  init: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) => atHost(env.service.port, host, path, { method, ...init });

/** A GraphQL request to `host`. */
export const gqlAt = (env: RestEnv, host: string, token: string | undefined, query: string, variables = {}) =>
  at(env, host, 'POST', '/graphql', { ...(token ? { token } : {}), body: { query, variables } });

/** The BaseUrl of a car share at `name.localhost` on this service. */
export const baseUrlOf = (env: RestEnv, name: string): string =>
  `https://${name}.localhost:${env.service.port}`;

/** Creates a car share through the platform API; returns the 201's body. */
export async function createCarShare(
  env: RestEnv,
  token: string,
  name: string,
  extra: Record<string, unknown> = {},
) {
  const r = await at(env, DEFAULT_HOST, 'POST', '/platform/api/carshares', {
    token,
    body: {
      BaseUrl: baseUrlOf(env, name),
      Name: `Car share ${name}`,
      Operator: { Username: `ops@${name}.example` },
      ...extra,
    },
  });
  if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.text}`);
  return r.json as { CarShare: Record<string, any>; InitialOperator: Record<string, any> };
}

/** A statement as the test database's owner (no row-level security): what is really stored. */
export async function stored<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: inject('databaseUrl') });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}
