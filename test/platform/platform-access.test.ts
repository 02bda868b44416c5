// Who reaches the platform API (CONTRACT §22): the default car share's host only (404 on every other host, REST and
// GraphQL alike, whoever asks), a caller holding the scope `platform` only (§10: 401 without a token, 403 without
// the scope, operators included), and the scope confers nothing else: no car share's users, cars, bookings,
// verifications, feedback, webhooks, client applications, audit or secrets, the default car share's included.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Actor, apiScopes } from '../../src/access/actor.js';
import { useRest } from '../rest-facade/support.js';
import { asClient, asOps, scopesWithout } from '../support/actors.js';
import { at, createCarShare, DEFAULT_HOST, gqlAt, platformClient, platformUser, stored } from './support.js';

const NIL = '00000000-0000-4000-8000-000000000000';

/** Every platform route, with a body where it takes one. */
const platformRoutes = (id: string): [string, string, unknown?][] => [
  ['GET', '/platform/api/carshares'],
  [
    'POST',
    '/platform/api/carshares',
    { BaseUrl: 'https://new.localhost', Name: 'New', Operator: { Username: 'o@n.example' } },
  ],
  ['GET', `/platform/api/carshares/${id}`],
  ['PATCH', `/platform/api/carshares/${id}`, { Name: 'Changed' }],
  ['PUT', `/platform/api/carshares/${id}/suspend`, { Reason: 'r' }],
  ['PUT', `/platform/api/carshares/${id}/reactivate`],
  ['DELETE', `/platform/api/carshares/${id}`],
  ['POST', `/platform/api/carshares/${id}/operators`, { Username: 'x@n.example' }],
  ['GET', '/platform/api/audit'],
];

/** Every platform field of the GraphQL schema. */
const platformFields = (id: string): string[] => [
  '{ carShares { total } }',
  `{ carShare(id: "${id}") { id } }`,
  '{ platformAudit { total } }',
  'mutation { createCarShare(input: { baseUrl: "https://new.localhost", name: "New", operator: { username: "o@n.example" } }) { id } }',
  `mutation { updateCarShare(id: "${id}", input: { name: "Changed" }) { id } }`,
  `mutation { suspendCarShare(id: "${id}", input: { reason: "r" }) { id } }`,
  `mutation { reactivateCarShare(id: "${id}") { id } }`,
  `mutation { deleteCarShare(id: "${id}") { id } }`,
  `mutation { addCarShareOperator(id: "${id}", input: { username: "x@n.example" }) { id } }`,
];

/** A car share's own data, route by route: reads and changes, with ids that exist there where it matters. */
const carShareRoutes = (userId: string): [string, string, unknown?][] => [
  ['GET', '/api/useraccounts'],
  ['GET', `/api/useraccounts/${userId}`],
  ['PATCH', `/api/useraccounts/${userId}`, { Password: 'another long passphrase here' }],
  ['PUT', `/api/useraccounts/${userId}/suspend`],
  [
    'POST',
    '/api/useraccounts',
    {
      Username: 'p@x.example',
      Password: 'a long and unusual passphrase',
      FirstName: 'P',
      LastName: 'X',
      Roles: ['ops'],
    },
  ],
  ['GET', '/api/cars'],
  ['POST', '/api/cars', { Make: 'Toyota', Model: 'Yaris', Year: 2020 }],
  ['GET', '/api/bookings'],
  ['GET', `/api/bookings/${NIL}`],
  ['GET', '/api/verifications'],
  ['PUT', `/api/verifications/${NIL}/verify`],
  ['GET', '/api/feedbacks'],
  ['GET', '/api/webhooks/subscriptions'],
  [
    'POST',
    '/api/webhooks/subscriptions',
    { Name: 'Hook', Event: 'useraccount_create', Url: 'https://hooks.example' },
  ],
  ['GET', '/api/clientapplications'],
  [
    'POST',
    '/api/clientapplications',
    { Name: 'App', GrantTypes: ['client_credentials'], AllowedScopes: ['platform'] },
  ],
  ['PUT', `/api/clientapplications/${NIL}/rotate-secret`],
  ['GET', `/api/cars/${NIL}`],
  ['PATCH', `/api/cars/${NIL}`, { Make: 'Audi' }],
  ['GET', `/api/verifications/${NIL}`],
  ['GET', `/api/feedbacks/${NIL}`],
  ['PUT', `/api/webhooks/subscriptions/${NIL}/rotate-secret`],
  ['GET', `/api/webhooks/subscriptions/${NIL}/deliveries`],
  ['GET', `/api/clientapplications/${NIL}`],
  ['GET', '/api/audit'],
  ['GET', '/api/reports/summary'],
];

describe('the platform API’s callers', () => {
  const env = useRest();
  let other: string;
  let otherOperator: string;
  let defaultOperator: string;

  beforeAll(async () => {
    const made = await createCarShare(env, env.tokenFor(platformUser()), 'other');
    other = made.CarShare.Id;
    otherOperator = made.InitialOperator.Id;
    const signUp = await at(env, DEFAULT_HOST, 'POST', '/api/useraccounts', {
      body: {
        Username: 'someone@default.example',
        Password: 'a long and unusual passphrase',
        FirstName: 'S',
        LastName: 'D',
      },
    });
    defaultOperator = signUp.json.UserAccount.Id;
  });

  it('on any other host every route is 404, whoever asks, and every field is NotFound', async () => {
    const tokens = [env.tokenFor(platformUser()), env.tokenFor(asOps()), undefined];
    for (const token of tokens)
      for (const [method, path, body] of platformRoutes(other)) {
        const r = await at(env, 'other.localhost', method, path, { ...(token ? { token } : {}), body });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.json.ResponseStatus.ErrorCode).toBe('NotFound');
      }
    for (const token of tokens)
      for (const query of platformFields(other)) {
        const r = await gqlAt(env, 'other.localhost', token, query);
        expect(r.json.errors?.[0]?.extensions?.code, query).toBe('NotFound');
        expect(r.json.data ?? null).toBeNull();
      }
    // Nothing was changed there.
    const still = await at(env, DEFAULT_HOST, 'GET', `/platform/api/carshares/${other}`, {
      token: env.tokenFor(platformUser()),
    });
    expect(still.json.CarShare).toMatchObject({ Name: 'Car share other', Status: 'Active' });
  });

  it('without a token every route is 401 with the Bearer challenge; without the scope, operators included, 403', async () => {
    for (const [method, path, body] of platformRoutes(other)) {
      const anon = await at(env, DEFAULT_HOST, method, path, { body });
      expect(anon.status, `${method} ${path}`).toBe(401);
      expect(anon.headers.get('www-authenticate')).toBe('Bearer realm="carshare"');
      // The scope without the role (a token cannot carry one, but the check does not trust that) is no platform.
      const scopeOnly = { ...asOps(), scopes: [...apiScopes, 'platform'] } as unknown as Actor;
      for (const actor of [
        asOps(defaultOperator),
        asClient(scopesWithout('platform')),
        asOps(randomUUID(), ['ops']),
        scopeOnly,
      ]) {
        const r = await at(env, DEFAULT_HOST, method, path, { token: env.tokenFor(actor), body });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.json.ResponseStatus).toMatchObject({
          ErrorCode: 'Forbidden',
          Meta: { RequiredScopes: ['platform'] },
        });
        expect(r.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      }
    }
    const ops = env.tokenFor(asOps(defaultOperator));
    for (const query of platformFields(other)) {
      expect((await gqlAt(env, DEFAULT_HOST, undefined, query)).json.errors[0].extensions.code, query).toBe(
        'Unauthorized',
      );
      expect((await gqlAt(env, DEFAULT_HOST, ops, query)).json.errors[0].extensions.code, query).toBe(
        'Forbidden',
      );
    }
    const still = await at(env, DEFAULT_HOST, 'GET', `/platform/api/carshares/${other}`, {
      token: env.tokenFor(platformUser()),
    });
    expect(still.json.CarShare).toMatchObject({ Name: 'Car share other', Status: 'Active' });
  });

  it('a platform credential reads and changes no car share’s data, the default car share’s included', async () => {
    for (const actor of [platformUser(), platformClient()]) {
      const token = env.tokenFor(actor);
      for (const [host, userId] of [
        [DEFAULT_HOST, defaultOperator],
        ['other.localhost', otherOperator],
      ] as const)
        for (const [method, path, body] of carShareRoutes(userId)) {
          const r = await at(env, host, method, path, { token, body });
          expect(r.status, `${actor.kind} ${host} ${method} ${path}`).toBe(403);
        }
      // GraphQL likewise, secrets included.
      for (const query of [
        '{ me { id } }',
        '{ userAccounts { total } }',
        '{ clientApplications { total } }',
        '{ auditEntries { total } }',
        '{ webhookSubscriptions { total } }',
      ])
        expect((await gqlAt(env, DEFAULT_HOST, token, query)).json.errors[0].extensions.code, query).toBe(
          'Forbidden',
        );
    }
    // Nothing was made or changed.
    const count = await stored<{ n: number }>(
      `select (select count(*) from user_account where status <> 'Active' or username = 'p@x.example')::int
            + (select count(*) from car)::int + (select count(*) from webhook_subscription)::int
            + (select count(*) from client_application where not is_first_party)::int as n`,
    );
    expect(count[0]!.n).toBe(0);
  });
});
