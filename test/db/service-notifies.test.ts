// CONTRACT §25: no triggers on car share tables. Once migrated, no table has a trigger of its own; the notifications
// the triggers sent are sent by the service in the transaction of each change, on the same channels with the same
// payloads: carshare_auth (`token:`, `grant:`, `account:`, `client:`), carshare_outbox (now naming the car share
// whose events committed) and carshare_webhook_subscription (the subscription's id).
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { notifyInTransaction } from '../../src/db/notify.js';
import { disableSubscription } from '../../src/delivery/delivery.store.js';
import { pgAdapter, tokenHash } from '../../src/oauth/adapter.js';
import { createUser } from '../factories/accounts.js';
import { requestBooking, world } from '../factories/bookings.js';
import { asOps } from '../support/actors.js';
import { scoped } from '../support/scope.js';
import { CREATE, DELETE, ROTATE, rows, UPDATE, useWebhookHarness } from '../webhooks/support.js';

const h = useWebhookHarness({ allowPrivateTargets: true });
const CHANNELS = ['carshare_auth', 'carshare_outbox', 'carshare_webhook_subscription'];

let listener: pg.Client;
let got: string[] = [];
beforeAll(async () => {
  listener = new pg.Client({ connectionString: inject('databaseUrl') });
  await listener.connect();
  listener.on('notification', (n) => got.push(`${n.channel} ${n.payload ?? ''}`));
  for (const c of CHANNELS) await listener.query(`listen ${c}`);
});
afterAll(async () => listener?.end());

/**
 * What the listener heard since the last call, sorted. A round trip on the listening connection first: every
 * notification committed before it has then arrived (as the token cache's barrier relies on).
 */
async function heard(channel?: string): Promise<string[]> {
  await listener.query('select 1');
  const all = got.sort();
  got = [];
  return channel ? all.filter((g) => g.startsWith(`${channel} `)) : all;
}

const ops = asOps();
const SUSPEND_USER = 'mutation($id: UUID!) { suspendUserAccount(id: $id) { id } }';
const REACTIVATE_USER = 'mutation($id: UUID!) { reactivateUserAccount(id: $id) { id } }';
const UPDATE_USER =
  'mutation($id: UUID!, $input: UpdateUserAccountInput!) { updateUserAccount(id: $id, input: $input) { id } }';
const CREATE_APP = `mutation($input: CreateClientApplicationInput!) { createClientApplication(input: $input) {
  id clientId } }`;
const UPDATE_APP = `mutation($id: UUID!, $input: UpdateClientApplicationInput!) {
  updateClientApplication(id: $id, input: $input) { id } }`;
const APP_VERB = (verb: string) => `mutation($id: UUID!) { ${verb}ClientApplication(id: $id) { id } }`;
const UPDATE_PROFILE = `mutation($id: UUID!, $input: UpdateProfileInput!) { updateProfile(id: $id, input: $input) { id } }`;

/** oidc-provider rows of an account and app, as the adapter stores them (ids of bearer values hashed). */
async function storeOAuthRows(accountId: string, clientId: string, grantId: string) {
  const payload = JSON.stringify({ accountId, clientId, grantId });
  const rowsOf = [
    ['AccessToken', 'live-token', "now() + interval '1 hour'"],
    ['AccessToken', 'expired-token', "now() - interval '1 minute'"],
    ['ClientCredentials', 'client-token', 'null'],
    ['Grant', grantId, "now() + interval '1 day'"],
    ['RefreshToken', 'refresh-token', "now() + interval '1 day'"],
    ['Session', 'session', "now() + interval '1 day'"],
  ] as const;
  for (const [model, id, expires] of rowsOf)
    await rows(
      h,
      `insert into oauth_model (model, id, payload, grant_id, expires_at) values (?, ?, ?::jsonb, ?, ${expires})`,
      [model, `${id}-${accountId}`, payload, grantId],
    );
  return {
    announced: [
      `carshare_auth token:live-token-${accountId}`,
      `carshare_auth token:client-token-${accountId}`,
      `carshare_auth grant:${grantId}-${accountId}`,
    ],
  };
}

describe('after migrating', () => {
  it('no table has a trigger of its own, and the trigger functions are gone', async () => {
    const triggers = await rows(
      h,
      `select t.tgname, t.tgrelid::regclass::text as "table" from pg_trigger t
        join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
       where not t.tgisinternal and n.nspname = 'public'`,
    );
    expect(triggers).toEqual([]);
    const functions = await rows(
      h,
      `select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'public' and p.prorettype = 'trigger'::regtype`,
    );
    expect(functions).toEqual([]);
  });
});

describe('notifyInTransaction', () => {
  it('is heard on commit, identical ones once; nothing on rollback; refused outside a transaction', async () => {
    await heard();
    await h.orm.em.fork().transactional(async (tx) => {
      await notifyInTransaction(tx as EntityManager, 'carshare_outbox', ['a', 'b', 'a']);
      await notifyInTransaction(tx as EntityManager, 'carshare_outbox', 'b');
    });
    expect(await heard()).toEqual(['carshare_outbox a', 'carshare_outbox b']);
    await expect(
      h.orm.em.fork().transactional(async (tx) => {
        await notifyInTransaction(tx as EntityManager, 'carshare_outbox', 'undone');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await expect(notifyInTransaction(h.orm.em.fork(), 'carshare_outbox', 'alone')).rejects.toThrow(
      /outside a transaction/,
    );
    expect(await heard()).toEqual([]);
  });
});

describe('carshare_auth', () => {
  it('an account: status and role changes and suspension revoking its live tokens and grants', async () => {
    const u = await createUser(h);
    const { announced } = await storeOAuthRows(u.id, 'ca_someone', 'g');
    await heard();
    await h.ok(ops, UPDATE_USER, { id: u.id, input: { username: `renamed.${u.username}` } });
    expect(await heard('carshare_auth')).toEqual([]);
    await h.ok(ops, SUSPEND_USER, { id: u.id });
    expect(await heard('carshare_auth')).toEqual([...announced, `carshare_auth account:${u.id}`].sort());
    await h.ok(ops, SUSPEND_USER, { id: u.id });
    expect(await heard('carshare_auth')).toEqual([]);
    await h.ok(ops, REACTIVATE_USER, { id: u.id });
    expect(await heard('carshare_auth')).toEqual([`carshare_auth account:${u.id}`]);
    await h.ok(ops, UPDATE_USER, { id: u.id, input: { roles: ['user', 'ops'] } });
    expect(await heard('carshare_auth')).toEqual([`carshare_auth account:${u.id}`]);
    await h.ok(ops, UPDATE_USER, { id: u.id, input: { status: 'Suspended' } });
    expect(await heard('carshare_auth')).toEqual([`carshare_auth account:${u.id}`]);
    expect(await rows(h, 'select model from oauth_model')).toEqual([]);
  });

  it('a client application: status changes and deletion, revoking its live tokens and grants', async () => {
    const a = (
      await h.ok<{ createClientApplication: { id: string; clientId: string } }>(ops, CREATE_APP, {
        input: { name: 'Notified app', grantTypes: ['client_credentials'], allowedScopes: ['cars:read'] },
      })
    ).createClientApplication;
    expect(await heard('carshare_auth')).toEqual([]);
    await h.ok(ops, UPDATE_APP, { id: a.id, input: { name: 'Renamed app' } });
    expect(await heard('carshare_auth')).toEqual([]);
    const u = await createUser(h);
    const first = await storeOAuthRows(u.id, a.clientId, 'g1');
    await heard();
    await h.ok(ops, APP_VERB('suspend'), { id: a.id });
    expect(await heard('carshare_auth')).toEqual(
      [...first.announced, `carshare_auth client:${a.clientId}`].sort(),
    );
    await h.ok(ops, APP_VERB('reactivate'), { id: a.id });
    expect(await heard('carshare_auth')).toEqual([`carshare_auth client:${a.clientId}`]);
    const v = await createUser(h);
    const second = await storeOAuthRows(v.id, a.clientId, 'g2');
    await heard();
    await h.ok(ops, APP_VERB('delete'), { id: a.id });
    expect(await heard('carshare_auth')).toEqual(
      [...second.announced, `carshare_auth client:${a.clientId}`].sort(),
    );
  });

  it("oidc-provider's deletes: a live token or grant, by id or by grant; other models and expired rows silently", async () => {
    const adapter = pgAdapter(h.orm, inject('defaultCarShareId'), async () => undefined);
    const access = new adapter('AccessToken');
    const grant = new adapter('Grant');
    const refresh = new adapter('RefreshToken');
    const store = async (model: string, id: string, grantId: string, expires: string) =>
      rows(
        h,
        `insert into oauth_model (model, id, payload, grant_id, expires_at) values (?, ?, '{}', ?, ${expires})`,
        [model, id, grantId],
      );
    await store('AccessToken', tokenHash('one'), 'gA', "now() + interval '1 hour'");
    await store('AccessToken', tokenHash('two'), 'gB', "now() + interval '1 hour'");
    await store('AccessToken', tokenHash('three'), 'gB', "now() + interval '1 hour'");
    await store('AccessToken', tokenHash('old'), 'gB', "now() - interval '1 second'");
    await store('Grant', 'gA', 'gA', 'null');
    await store('RefreshToken', tokenHash('r'), 'gB', "now() + interval '1 hour'");
    await heard();
    await access.destroy('one');
    expect(await heard()).toEqual([`carshare_auth token:${tokenHash('one')}`]);
    await access.revokeByGrantId('gB');
    expect(await heard()).toEqual(
      [`carshare_auth token:${tokenHash('two')}`, `carshare_auth token:${tokenHash('three')}`].sort(),
    );
    await grant.destroy('gA');
    expect(await heard()).toEqual(['carshare_auth grant:gA']);
    await refresh.revokeByGrantId('gB');
    await access.destroy('nothing');
    expect(await heard()).toEqual([]);
    expect(await rows(h, 'select model from oauth_model')).toEqual([]);
  });
});

describe('carshare_webhook_subscription', () => {
  it('a change of URL, secrets, status or deletion, by a command or by the workers; nothing else', async () => {
    const u = await createUser(h);
    const [s] = (
      await h.ok<{ createWebhookSubscriptions: { id: string }[] }>(u.actor, CREATE, {
        input: { name: 'Hook', events: ['profile_update'], config: { url: 'https://hooks.example.com/a' } },
      })
    ).createWebhookSubscriptions;
    const id = s!.id;
    const changed = `carshare_webhook_subscription ${id}`;
    expect(await heard('carshare_webhook_subscription')).toEqual([]);
    await h.ok(u.actor, UPDATE, { id, input: { name: 'Renamed' } });
    expect(await heard('carshare_webhook_subscription')).toEqual([]);
    await h.ok(u.actor, UPDATE, { id, input: { config: { url: 'https://hooks.example.com/b' } } });
    expect(await heard('carshare_webhook_subscription')).toEqual([changed]);
    await h.ok(u.actor, ROTATE, { id });
    expect(await heard('carshare_webhook_subscription')).toEqual([changed]);
    await h.ok(u.actor, UPDATE, { id, input: { isActive: false } });
    expect(await heard('carshare_webhook_subscription')).toEqual([changed]);
    await h.ok(u.actor, UPDATE, { id, input: { isActive: true } });
    expect(await heard('carshare_webhook_subscription')).toEqual([changed]);
    const disable = () =>
      scoped(h.orm).transactional((tx) =>
        disableSubscription(tx as EntityManager, id, 'Failing', new Date()),
      );
    await disable();
    expect(await heard('carshare_webhook_subscription')).toEqual([changed]);
    await disable();
    expect(await heard('carshare_webhook_subscription')).toEqual([]);
    await h.ok(u.actor, DELETE, { id });
    expect(await heard('carshare_webhook_subscription')).toEqual([changed]);
  });
});

describe('carshare_outbox', () => {
  it('an event written through the unit of work or by the booking request statement; none without an event', async () => {
    const u = await createUser(h);
    // The car share whose events they are: a relay takes them without asking which car shares have any.
    const named = `carshare_outbox ${h.carShare.id}`;
    expect(await heard('carshare_outbox')).toEqual([named]);
    await h.ok(u.actor, UPDATE_PROFILE, { id: u.profileId, input: { description: 'Hello' } });
    expect(await heard('carshare_outbox')).toEqual([named]);
    await h.ok(u.actor, UPDATE_PROFILE, { id: u.profileId, input: { description: 'Hello' } });
    expect(await heard('carshare_outbox')).toEqual([]);
    const w = await world(h, { autoApprove: true });
    await heard();
    const b = await requestBooking(h, w);
    expect(b.state).toBe('Approved');
    expect(await heard('carshare_outbox')).toEqual([named]);
    expect(
      await rows(h, 'select name from outbox_event where name = ?', ['carbooking_approve']),
    ).toHaveLength(1);
  });
});
