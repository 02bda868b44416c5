// CONTRACT §22–§23 through the platform API: suspend and reactivate (202, the state rule, the default car share
// refused first), and delete: only a suspended car share; after the 204 its Id and host are unknown at once, no
// delivery is left to attempt, its rows are purged within 60 s, and its host may be given to a new car share.
import { describe, expect, it } from 'vitest';
import { deleteCarShare, purgeDeletedCarShares } from '../../src/carshares/car-share.deletion.js';
import { suspendCarShare } from '../../src/carshares/car-share.lifecycle.js';
import { REST_CAR, useRest } from '../rest-facade/support.js';
import { asOps, asUser } from '../support/actors.js';
import { waitFor } from '../support/wait.js';
import { at, baseUrlOf, createCarShare, DEFAULT_HOST, gqlAt, platformUser, stored } from './support.js';

/** Rows naming the car share, per table that has a car_share_id column (the purge's own definition of "any"). */
async function rowsOf(carShareId: string): Promise<Record<string, number>> {
  const tables = await stored<{ t: string }>(
    `select c.oid::regclass::text as t from pg_class c
       join pg_attribute a on a.attrelid = c.oid and a.attname = 'car_share_id' and not a.attisdropped
      where c.relkind in ('r', 'p') and c.relnamespace = 'public'::regnamespace`,
  );
  const out: Record<string, number> = {};
  for (const { t } of tables) {
    const [r] = await stored<{ n: number }>(`select count(*)::int as n from ${t} where car_share_id = $1`, [
      carShareId,
    ]);
    if (r!.n > 0) out[t] = r!.n;
  }
  return out;
}

describe('suspending, reactivating and deleting a car share', () => {
  const env = useRest();
  const token = () => env.tokenFor(platformUser());
  const P = (method: string, path: string, body?: unknown) =>
    at(env, DEFAULT_HOST, method, `/platform/api${path}`, {
      token: token(),
      ...(body === undefined ? {} : { body }),
    });

  it('suspend and reactivate answer 202 with the car share; from the wrong state 409 InvalidStateTransition', async () => {
    const id = (await createCarShare(env, token(), 'lima')).CarShare.Id;
    const s = await P('PUT', `/carshares/${id}/suspend`, { Reason: 'Unpaid invoice' });
    expect(s.status).toBe(202);
    expect(s.json.CarShare).toMatchObject({ Status: 'Suspended', SuspendedReason: 'Unpaid invoice' });
    expect(s.json.CarShare.SuspendedDateUtc).toMatch(/Z$/);
    const again = await P('PUT', `/carshares/${id}/suspend`, { Reason: 'Twice' });
    expect(again.status).toBe(409);
    expect(again.json.ResponseStatus).toMatchObject({
      ErrorCode: 'InvalidStateTransition',
      Meta: { State: 'Suspended' },
    });
    expect((await P('GET', '/carshares?status=Suspended')).json.CarShares.map((c: any) => c.Id)).toEqual([
      id,
    ]);
    const r = await P('PUT', `/carshares/${id}/reactivate`);
    expect(r.status).toBe(202);
    expect(r.json.CarShare.Status).toBe('Active');
    expect(r.json.CarShare.SuspendedReason).toBeUndefined();
    const twice = await P('PUT', `/carshares/${id}/reactivate`);
    expect(twice.status).toBe(409);
    expect(twice.json.ResponseStatus).toMatchObject({
      ErrorCode: 'InvalidStateTransition',
      Meta: { State: 'Active' },
    });
    // Both trails hold both changes (the test clock stands still: compared as sets).
    const platform = await P('GET', `/audit?carshareid=${id}`);
    expect(platform.json.AuditEntries.map((e: any) => e.Action).sort()).toEqual([
      'createCarShare',
      'reactivateCarShare',
      'suspendCarShare',
    ]);
    const own = await at(env, 'lima.localhost', 'GET', '/api/audit?subjecttype=CarShare', {
      token: env.tokenFor(asOps()),
    });
    expect(own.json.AuditEntries.map((e: any) => `${e.ActorType} ${e.Action} ${e.ActorId}`).sort()).toEqual([
      'Platform createCarShare undefined',
      'Platform reactivateCarShare undefined',
      'Platform suspendCarShare undefined',
    ]);
  });

  it('the default car share can be neither suspended nor deleted: 409 Conflict, DefaultCarShare, before any state rule', async () => {
    const dflt = (await P('GET', '/carshares?host=carshare.test')).json.CarShares[0];
    expect(dflt.IsDefault).toBe(true);
    for (const [method, path] of [
      ['PUT', `/carshares/${dflt.Id}/suspend`],
      ['DELETE', `/carshares/${dflt.Id}`],
    ] as const) {
      const r = await P(method, path, method === 'PUT' ? { Reason: 'no' } : undefined);
      expect(r.status, path).toBe(409);
      expect(r.json.ResponseStatus).toMatchObject({
        ErrorCode: 'Conflict',
        Meta: { Reason: 'DefaultCarShare' },
      });
    }
    expect((await P('GET', `/carshares/${dflt.Id}`)).json.CarShare.Status).toBe('Active');
  });

  it('only a suspended car share is deleted; after the 204 its Id and host are unknown and its rows go', async () => {
    const made = await createCarShare(env, token(), 'mike');
    const id = made.CarShare.Id;
    // Some of everything in it: accounts, a car, a client application, audit entries, events, keys.
    const owner = await at(env, 'mike.localhost', 'POST', '/api/useraccounts', {
      body: {
        Username: 'owner@mike.example',
        Password: 'a long and unusual passphrase',
        FirstName: 'O',
        LastName: 'M',
      },
    });
    const car = await at(env, 'mike.localhost', 'POST', '/api/cars', {
      token: env.tokenFor(asUser(owner.json.UserAccount.Id)),
      body: REST_CAR,
    });
    expect(car.status).toBe(201);
    const app = await at(env, 'mike.localhost', 'POST', '/api/clientapplications', {
      token: env.tokenFor(asOps(made.InitialOperator.Id)),
      body: { Name: 'Mike app', GrantTypes: ['client_credentials'], AllowedScopes: ['cars:read'] },
    });
    expect(app.status).toBe(201);
    expect(Object.keys(await rowsOf(id))).toEqual(
      expect.arrayContaining([
        'user_account',
        'car',
        'client_application',
        'audit_entry',
        'outbox_event',
        'oauth_key',
      ]),
    );

    const active = await P('DELETE', `/carshares/${id}`);
    expect(active.status).toBe(409);
    expect(active.json.ResponseStatus).toMatchObject({
      ErrorCode: 'InvalidStateTransition',
      Meta: { State: 'Active' },
    });
    expect((await P('DELETE', '/carshares/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await P('PUT', `/carshares/${id}/suspend`, { Reason: 'Closing' })).status).toBe(202);

    const gone = await P('DELETE', `/carshares/${id}`);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    // At once: its Id is unknown to the platform, its host to the service, and nothing is left to deliver.
    expect((await P('GET', `/carshares/${id}`)).status).toBe(404);
    expect((await P('DELETE', `/carshares/${id}`)).status).toBe(404);
    expect((await P('PUT', `/carshares/${id}/reactivate`)).status).toBe(404);
    expect((await P('GET', '/carshares?host=mike.localhost')).json.Metadata.Total).toBe(0);
    const landing = await at(env, 'mike.localhost', 'GET', '/', { headers: { Accept: 'application/json' } });
    expect(landing.json.CarShareId).not.toBe(id);
    expect(landing.json.Name).toBe('Carshare');
    const undelivered = await stored<{ n: number }>(
      `select ((select count(*) from webhook_delivery where car_share_id = $1)
             + (select count(*) from outbox_event where car_share_id = $1))::int as n`,
      [id],
    );
    expect(undelivered[0]!.n).toBe(0);
    // Within 60 s no row names it, in any table, its own car_share row included.
    await waitFor(async () => Object.keys(await rowsOf(id)).length === 0, {
      what: 'the purge',
      timeoutMs: 60_000,
    });
    expect(await stored('select id from car_share where id = $1', [id])).toEqual([]);
    // The platform's trail keeps the deletion.
    const trail = await P('GET', `/audit?carshareid=${id}&action=deleteCarShare`);
    expect(trail.json.AuditEntries).toEqual([expect.objectContaining({ SubjectId: id, CarShareId: id })]);

    // The host may be given to a new car share, which answers there with its own Id.
    const again = await createCarShare(env, token(), 'mike');
    expect(again.CarShare.Id).not.toBe(id);
    const now = await at(env, 'mike.localhost', 'GET', '/', { headers: { Accept: 'application/json' } });
    expect(now.json.CarShareId).toBe(again.CarShare.Id);
  }, 90_000);

  it('the host is free the moment the deletion commits, before any purge has run', async () => {
    const id = (await createCarShare(env, token(), 'oscar')).CarShare.Id;
    const orm = env.service.db.orm;
    await suspendCarShare(orm, id, 'closing', { actorType: 'Cli' }, new Date());
    // Deleted as the command line deletes, without starting a purge: every row of it is still there.
    await deleteCarShare(orm, id, { actorType: 'Cli' }, new Date());
    expect(Object.keys(await rowsOf(id))).toContain('user_account');
    const again = await createCarShare(env, token(), 'oscar');
    expect(again.CarShare.Id).not.toBe(id);
    const there = await at(env, 'oscar.localhost', 'GET', '/', { headers: { Accept: 'application/json' } });
    expect(there.json.CarShareId).toBe(again.CarShare.Id);
    expect(await purgeDeletedCarShares(orm)).toEqual([id]);
    expect(await rowsOf(id)).toEqual({});
    expect(Object.keys(await rowsOf(again.CarShare.Id))).toContain('user_account');
  });

  it('deleteCarShare is a GraphQL field too, with the same rules', async () => {
    const id = (await createCarShare(env, token(), 'november')).CarShare.Id;
    const t = token();
    const active = await gqlAt(env, DEFAULT_HOST, t, `mutation { deleteCarShare(id: "${id}") { id } }`);
    expect(active.json.errors[0].extensions.code).toBe('InvalidStateTransition');
    await gqlAt(
      env,
      DEFAULT_HOST,
      t,
      `mutation { suspendCarShare(id: "${id}", input: { reason: "x" }) { status } }`,
    );
    const done = await gqlAt(env, DEFAULT_HOST, t, `mutation { deleteCarShare(id: "${id}") { id } }`);
    expect(done.json).toEqual({ data: { deleteCarShare: { id } } });
    expect(
      (await gqlAt(env, DEFAULT_HOST, t, `{ carShare(id: "${id}") { id } }`)).json.errors[0].extensions.code,
    ).toBe('NotFound');
    expect(baseUrlOf(env, 'november')).toContain('november.localhost');
  });
});
