// One service with two car shares (CONTRACT §19): the default one (A, at PUBLIC_URL) and a second one (B, at a host
// of its own under `.localhost`, new in each test file since files share the test database), each reached at its own
// BaseUrl with its certificate verified, and each with its operator.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { dirname } from 'node:path';
import { Agent, fetch, type RequestInit } from 'undici';
import { apiScopes } from '../../src/access/actor.js';
import { createUserAccount } from '../../src/accounts/account.commands.js';
import { CAR_SHARE_CHANNEL } from '../../src/carshares/registry.js';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import { carShareEm, deploymentSql } from '../../src/db/scope.js';
import { localCaCertPath } from '../../src/local-ca.js';
import { dashboardClient } from '../../src/oauth/first-party.js';
import type { ServiceOptions } from '../../src/service.js';
import { systemClock } from '../../src/shared/clock.js';
import { defaultCarShareId } from '../support/scope.js';
import { waitFor } from '../support/wait.js';
import { type OAuthService, OPS, startOAuthService, type TestClient, userTokens } from './support.js';

/** Every name resolves to the service's loopback address (no resolver knows a `.localhost` name but `localhost`). */
const loopback = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
  opts?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) as LookupFunction;

export const OPS_B = {
  username: 'ops@second.example',
  password: 'the second car share’s operator passphrase',
};

export interface TwoCarShares {
  s: OAuthService;
  A: OAuthService;
  B: OAuthService;
  aId: string;
  bId: string;
  /** B's host. */
  bHost: string;
  /** What verifies every car share's host (its certificates), and the lookup that sends each name to loopback. */
  ca: string[];
  lookup: LookupFunction;
  /** Across car shares, as the DATABASE_URL user. */
  sql<T>(query: string, params?: unknown[]): Promise<T[]>;
  /** A client application made as `create-client` makes one, in that car share. */
  clientIn(
    carShareId: string,
    opts: { grants: string[]; scopes: string[]; redirectUris?: string[]; refresh?: boolean },
  ): Promise<TestClient>;
  /** An operator's access token at a car share, through its dashboard client (`ops` and every other scope it may). */
  opsToken(at: 'A' | 'B', scope?: string): Promise<string>;
  close(): Promise<void>;
}

/** The service as seen at one car share's address. */
function site(s: OAuthService, baseUrl: string, agent: Agent): OAuthService {
  const doFetch = (pathOrUrl: string, init: RequestInit = {}) =>
    fetch(pathOrUrl.startsWith('https://') ? pathOrUrl : `${baseUrl}${pathOrUrl}`, {
      ...init,
      dispatcher: agent,
    });
  return {
    ...s,
    origin: baseUrl,
    issuer: `${baseUrl}/api/oauth`,
    agent,
    fetch: doFetch,
    customFetch: ((url: string, options: RequestInit) =>
      doFetch(String(url), options)) as unknown as OAuthService['customFetch'],
  };
}

export async function startTwoCarShares(
  env: Record<string, string> = {},
  webhooks?: ServiceOptions['webhooks'],
): Promise<TwoCarShares> {
  const s = await startOAuthService({ env, ...(webhooks ? { webhooks } : {}) });
  const sql = <T>(query: string, params: unknown[] = []) => deploymentSql<T>(s.service.db.orm, query, params);
  const port = new URL(s.origin).port;
  const plain = new Agent({ connect: { ca: s.service.cert, lookup: loopback } });
  const A = site(s, s.origin, plain);
  const bId = randomUUID();
  const bHost = `b-${bId.slice(0, 8)}.localhost`;
  const second = `https://${bHost}:${port}`;
  await sql('insert into car_share (id, base_url, host, name) values (?, ?, ?, ?)', [
    bId,
    second,
    bHost,
    'Second car share',
  ]);
  await sql('select pg_notify(?, ?)', [CAR_SHARE_CHANNEL, bId]);
  const caFile = localCaCertPath(dirname(dirname(s.service.certPath)));
  await waitFor(() => existsSync(caFile), { what: 'the local CA' });
  const ca = [s.service.cert, readFileSync(caFile, 'utf8')];
  const trusted = new Agent({ connect: { ca, lookup: loopback } });
  const B = site(s, second, trusted);
  await waitFor(
    async () => {
      const r = await B.fetch('/', { headers: { accept: 'application/json' } }).catch(() => undefined);
      return ((await r?.json()) as { CarShareId?: string } | undefined)?.CarShareId === bId;
    },
    { what: 'the second car share to be served' },
  );
  await carShareEm(s.service.db.orm, bId).transactional((em) =>
    createUserAccount(
      {
        em: em as never,
        actor: { kind: 'clientapplication', id: null, roles: [], scopes: apiScopes },
        clock: systemClock,
      },
      { ...OPS_B, firstName: 'Second', lastName: 'Operator', roles: ['ops'] },
    ),
  );
  const aId = defaultCarShareId();
  return {
    s,
    A,
    B,
    aId,
    bId,
    bHost,
    ca,
    lookup: loopback,
    sql,
    async clientIn(carShareId, opts) {
      const args = ['--name', `App ${randomUUID().slice(0, 8)}`, '--scopes', opts.scopes.join(' ')];
      for (const g of opts.grants) args.push('--grant', g);
      for (const u of opts.redirectUris ?? []) args.push('--redirect-uri', u);
      if (opts.refresh) args.push('--refresh');
      const r = await createClientFromCli(s.service.db, args, carShareId);
      return { id: r.Id, clientId: r.ClientId, clientSecret: r.ClientSecret };
    },
    async opsToken(at, scope = 'ops users:read users:write') {
      const [view, id, ops] = at === 'A' ? [A, aId, OPS] : [B, bId, OPS_B];
      const dash = await dashboardClient(s.service.db.orm, {
        id,
        baseUrl: view.origin,
        isDefault: at === 'A',
      });
      return (await userTokens(view, dash, dash.redirectUri, ops, scope)).access_token;
    },
    async close() {
      await plain.close();
      await trusted.close();
      await s.close();
    },
  };
}
