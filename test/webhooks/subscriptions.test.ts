// Webhook subscriptions over GraphQL on real PostgreSQL: create (shapes, secrets, errors), visibility,
// update, rotate, delete, the SSRF guard at subscribe time, and the permission table.
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { systemLookup } from '../../src/webhooks/target-guard.js';
import { createUser } from '../factories/accounts.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf } from '../support/harness.js';
import {
  CREATE,
  DELETE,
  DELIVERIES,
  DELIVERY,
  REDELIVER,
  ROTATE,
  rows,
  type S,
  SUBSCRIPTION,
  SUBSCRIPTIONS,
  TEST,
  UPDATE,
  useWebhookHarness,
} from './support.js';

const h = useWebhookHarness({ allowPrivateTargets: true });
// Names under loopback.test resolve to 127.0.0.1, as a hostile DNS record would; others as usual. The first
// harness empties the shared database before each test.
const guarded = useWebhookHarness({
  allowPrivateTargets: false,
  lookup: async (host) =>
    host.endsWith('.loopback.test') ? [{ address: '127.0.0.1', family: 4 }] : systemLookup(host),
  resetEach: false,
});

const URL = 'https://hooks.example.com/carshare';
const create = async (actor: S, input: S) =>
  (await h.ok<{ createWebhookSubscriptions: S[] }>(actor as never, CREATE, { input }))
    .createWebhookSubscriptions;

describe('createWebhookSubscriptions', () => {
  it('creates one subscription per event, each with its own whsec_ secret of 32 bytes, shown only here', async () => {
    const u = await createUser(h);
    const subs = await create(u.actor, {
      name: 'My Notification',
      events: ['carbooking_approve', 'carbooking_cancel'],
      config: { url: URL },
    });
    expect(subs.map((s) => s.event)).toEqual(['carbooking_approve', 'carbooking_cancel']);
    for (const s of subs) {
      expect(s).toMatchObject({
        name: 'My Notification',
        config: { url: URL, contentType: 'application/json' },
        isActive: true,
        disabledReason: null,
        consecutiveFailures: 0,
        createdById: u.id,
      });
      expect(s.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(s.secret.slice(6), 'base64')).toHaveLength(32);
    }
    expect(subs[0]!.secret).not.toBe(subs[1]!.secret);
    const read = await h.ok<{ webhookSubscription: S }>(u.actor, SUBSCRIPTION, { id: subs[0]!.id });
    expect(read.webhookSubscription.secret).toBeNull();
    const list = await h.ok<{ webhookSubscriptions: S }>(u.actor, SUBSCRIPTIONS);
    expect(list.webhookSubscriptions.total).toBe(2);
    expect(list.webhookSubscriptions.nodes.every((s: S) => s.secret === null)).toBe(true);
    // Stored encrypted: the plain secret appears nowhere in the row.
    const [row] = await rows(h, 'select secret from webhook_subscription where id = ?', [subs[0]!.id]);
    expect(row!.secret).toMatch(/^v1\./);
    expect(row!.secret).not.toContain(subs[0]!.secret.slice(6));
  });

  it('accepts `event` for `events`, a space- or comma-separated list, `url` at the top level, and a supplied secret', async () => {
    const u = await createUser(h);
    const raw = Buffer.alloc(24, 7).toString('base64');
    const one = await create(u.actor, {
      name: 'single',
      event: 'profile_update',
      url: URL,
      config: { secret: raw },
    });
    expect(one.map((s) => [s.event, s.config.url, s.secret])).toEqual([
      ['profile_update', URL, `whsec_${raw}`],
    ]);
    const many = await create(u.actor, {
      name: 'several',
      events: ['carbooking_use carbooking_return,carbooking_complete'],
      config: { url: `${URL}/2`, secret: `whsec_${raw}` },
    });
    expect(many.map((s) => s.event)).toEqual(['carbooking_use', 'carbooking_return', 'carbooking_complete']);
    expect(new Set(many.map((s) => s.secret))).toEqual(new Set([`whsec_${raw}`]));
  });

  it.each([
    [{ events: ['carbooking_explode'] }, 'InvalidValue', 'events'],
    [{ events: undefined, event: 'nope' }, 'InvalidValue', 'event'],
    [{ events: [] }, 'NotEmpty', 'events'],
    [{ name: 'abc' }, 'TooShort', 'name'],
    [{ name: undefined }, 'NotEmpty', 'name'],
    [{ config: { url: 'not a url' } }, 'InvalidFormat', 'config.url'],
    [{ config: undefined, url: 'ftp://hooks.example.com' }, 'InvalidValue', 'url'],
    [{ config: { url: URL, secret: 'c2hvcnQ=' } }, 'InvalidValue', 'config.secret'],
    [{ config: { url: URL, secret: Buffer.alloc(65).toString('base64') } }, 'InvalidValue', 'config.secret'],
    [{ config: { url: URL, contentType: 'text/xml' } }, 'InvalidValue', 'config.contentType'],
  ])('refuses %j with %s naming %s, creating nothing', async (change, code, field) => {
    const u = await createUser(h);
    const input = { name: 'A subscription', events: ['carbooking_approve'], config: { url: URL }, ...change };
    const r = await h.run(u.actor, CREATE, { input });
    expect(errorOf(r)).toMatchObject({ code, field });
    expect(await rows(h, 'select id from webhook_subscription')).toHaveLength(0);
  });

  it('refuses the same (caller, event, url) twice with AlreadyExists; another caller may', async () => {
    const [a, b] = [await createUser(h), await createUser(h)];
    const input = { name: 'Approvals', events: ['carbooking_approve'], config: { url: URL } };
    await create(a.actor, input);
    expect(errorOf(await h.run(a.actor, CREATE, { input }))).toMatchObject({ code: 'AlreadyExists' });
    await create(b.actor, input);
    await create(a.actor, { ...input, config: { url: `${URL}/other` } });
  });

  it('is open to users, ops and client applications with webhooks:write, and refused otherwise', async () => {
    const input = { name: 'Approvals', events: ['carbooking_approve'], config: { url: URL } };
    const u = await createUser(h);
    expect(errorOf(await h.run(anonymous, CREATE, { input })).code).toBe('Unauthorized');
    const noScope = asUser(u.id, scopesWithout('webhooks:write'));
    expect(errorOf(await h.run(noScope, CREATE, { input })).code).toBe('Forbidden');
    expect(errorOf(await h.run(asClient(['webhooks:read']), CREATE, { input })).code).toBe('Forbidden');
    const app = asClient(['webhooks:write']);
    await create(app, input);
    await create(asOps(), input);
    const flags = await rows(
      h,
      'select created_by_id, receives_all from webhook_subscription order by receives_all',
    );
    expect(flags.map((f) => f.receives_all)).toEqual([true, true]);
    await create(u.actor, input);
    const mine = await rows(h, 'select receives_all from webhook_subscription where created_by_id = ?', [
      u.id,
    ]);
    expect(mine).toEqual([{ receives_all: false }]);
  });
});

describe('the SSRF guard at subscribe time', () => {
  it.each([
    'https://127.0.0.1/hook',
    'https://127.1/hook',
    'https://2130706433/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    // IPv6 that embeds a private IPv4 address: compatible (::/96), mapped, translated, NAT64, 6to4.
    'https://[::127.0.0.1]/hook',
    'https://[::10.0.0.1]/hook',
    'https://[::8.8.8.8]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://[::ffff:0:127.0.0.1]/hook',
    'https://[64:ff9b::127.0.0.1]/hook',
    'https://[64:ff9b::10.0.0.1]/hook',
    'https://[64:ff9b:1::a00:1]/hook',
    'https://[2002:7f00:1::1]/hook',
    'https://[2002:c0a8:101::1]/hook',
    'https://10.0.0.1/hook',
    'https://172.16.0.1/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hook',
    'https://0.0.0.0/hook',
    'https://[::]/hook',
    'https://[fc00::1]/hook',
    'https://[fe80::1]/hook',
    'https://224.0.0.1/hook',
    'https://localhost/hook',
    // A name (not the word localhost) that resolves to loopback.
    'https://hooks.loopback.test/hook',
    'http://8.8.8.8/hook',
  ])('refuses %s with InvalidValue naming config.url, and the ways out for a local receiver', async (url) => {
    const u = await createUser(guarded);
    const r = await guarded.run(u.actor, CREATE, {
      input: { name: 'Guarded', events: ['profile_update'], config: { url } },
    });
    expect(errorOf(r)).toMatchObject({ code: 'InvalidValue', field: 'config.url' });
    // CONTRACT §27: the refusal names the forwarder and the development setting.
    expect(errorOf(r).message).toContain('npm run webhooks -- listen');
    expect(errorOf(r).message).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS');
  });

  it("refuses this machine's own host name when it resolves to loopback (real DNS)", async () => {
    const name = hostname();
    const addresses = await systemLookup(name).catch(() => []);
    if (!addresses.some((a) => a.address.startsWith('127.') || a.address === '::1')) return;
    const u = await createUser(guarded);
    const r = await guarded.run(u.actor, CREATE, {
      input: { name: 'Guarded', events: ['profile_update'], config: { url: `https://${name}/hook` } },
    });
    expect(errorOf(r)).toMatchObject({ code: 'InvalidValue', field: 'config.url' });
  });

  it('accepts a public https address, and lifts both rules with WEBHOOK_ALLOW_PRIVATE_TARGETS', async () => {
    const u = await createUser(guarded);
    const ok = await guarded.ok<{ createWebhookSubscriptions: S[] }>(u.actor, CREATE, {
      input: { name: 'Public', events: ['profile_update'], config: { url: 'https://8.8.8.8/hook' } },
    });
    expect(ok.createWebhookSubscriptions).toHaveLength(1);
    const v = await createUser(h);
    await create(v.actor, {
      name: 'Loopback',
      events: ['profile_update'],
      config: { url: 'http://127.0.0.1:9/x' },
    });
  });
});

describe('reading, updating, rotating and deleting', () => {
  it("shows a caller their own subscriptions (ops all); another user's is NotFound", async () => {
    const [a, b] = [await createUser(h), await createUser(h)];
    const [s] = await create(a.actor, { name: 'Mine', events: ['profile_update'], config: { url: URL } });
    await create(b.actor, { name: 'Theirs', events: ['profile_update'], config: { url: URL } });
    expect(errorOf(await h.run(b.actor, SUBSCRIPTION, { id: s!.id })).code).toBe('NotFound');
    expect((await h.ok<S>(b.actor, SUBSCRIPTIONS)).webhookSubscriptions.total).toBe(1);
    expect((await h.ok<S>(asOps(), SUBSCRIPTIONS)).webhookSubscriptions.total).toBe(2);
    expect((await h.ok<S>(asOps(), SUBSCRIPTION, { id: s!.id })).webhookSubscription.name).toBe('Mine');
    for (const doc of [UPDATE, DELETE, ROTATE, TEST]) {
      const vars = doc === UPDATE ? { id: s!.id, input: { name: 'Hijacked' } } : { id: s!.id };
      expect(errorOf(await h.run(b.actor, doc, vars)).code).toBe('NotFound');
    }
  });

  it('updates name and url; IsActive false disables (Manual) and skips pending deliveries; true clears the failures', async () => {
    const u = await createUser(h);
    const [s] = await create(u.actor, { name: 'Before', events: ['profile_update'], config: { url: URL } });
    const test = await h.ok<S>(u.actor, TEST, { id: s!.id });
    expect(test.testWebhookSubscription.status).toBe('Pending');
    const upd = await h.ok<S>(u.actor, UPDATE, {
      id: s!.id,
      input: { name: 'After', config: { url: `${URL}/v2` }, isActive: false },
    });
    expect(upd.updateWebhookSubscription).toMatchObject({
      name: 'After',
      config: { url: `${URL}/v2` },
      isActive: false,
      disabledReason: 'Manual',
      secret: null,
    });
    const d = await h.ok<S>(u.actor, DELIVERY, { id: test.testWebhookSubscription.id });
    expect(d.webhookDelivery.status).toBe('Skipped');
    await rows(
      h,
      'update webhook_subscription set consecutive_failures = 7, failing_since_date_utc = now() where id = ?',
      [s!.id],
    );
    const back = await h.ok<S>(u.actor, UPDATE, { id: s!.id, input: { isActive: true } });
    expect(back.updateWebhookSubscription).toMatchObject({
      isActive: true,
      disabledReason: null,
      consecutiveFailures: 0,
    });
    const r = await h.run(u.actor, UPDATE, { id: s!.id, input: { config: { secret: 'whsec_x' } } });
    expect(errorOf(r)).toMatchObject({ code: 'InvalidValue', field: 'config.secret' });
  });

  it('rotates the secret: a new one is shown once, the old one keeps signing for 24 hours', async () => {
    const u = await createUser(h);
    const [s] = await create(u.actor, { name: 'Rotating', events: ['profile_update'], config: { url: URL } });
    const r = await h.ok<S>(u.actor, ROTATE, { id: s!.id });
    const rotated = r.rotateWebhookSubscriptionSecret;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(s!.secret);
    const [row] = await rows(
      h,
      'select previous_secret, previous_secret_expires_date_utc as until from webhook_subscription where id = ?',
      [s!.id],
    );
    expect(row!.previous_secret).toMatch(/^v1\./);
    expect(new Date(row!.until).getTime() - h.clock.now().getTime()).toBe(24 * 3600 * 1000);
  });

  it('deletes at once: NotFound afterwards, pending deliveries Cancelled, a second delete NotFound', async () => {
    const u = await createUser(h);
    const [s] = await create(u.actor, { name: 'Doomed', events: ['profile_update'], config: { url: URL } });
    const test = (await h.ok<S>(u.actor, TEST, { id: s!.id })).testWebhookSubscription;
    expect((await h.ok<S>(u.actor, DELETE, { id: s!.id })).deleteWebhookSubscription).toEqual({ id: s!.id });
    expect(errorOf(await h.run(u.actor, SUBSCRIPTION, { id: s!.id })).code).toBe('NotFound');
    expect(errorOf(await h.run(u.actor, DELETE, { id: s!.id })).code).toBe('NotFound');
    expect((await h.ok<S>(u.actor, SUBSCRIPTIONS)).webhookSubscriptions.total).toBe(0);
    const [d] = await rows(h, 'select status from webhook_delivery where id = ?', [test.id]);
    expect(d!.status).toBe('Cancelled');
    const [gone] = await rows(h, 'select secret, previous_secret from webhook_subscription where id = ?', [
      s!.id,
    ]);
    expect(gone).toEqual({ secret: null, previous_secret: null });
    // The same (caller, event, url) may be subscribed again.
    await create(u.actor, { name: 'Doomed again', events: ['profile_update'], config: { url: URL } });
  });
});

describe('deliveries', () => {
  it('lists and reads deliveries of visible subscriptions only; ids must be 32 hex; Pending cannot be redelivered', async () => {
    const [a, b] = [await createUser(h), await createUser(h)];
    const [s] = await create(a.actor, { name: 'Pinged', events: ['profile_update'], config: { url: URL } });
    const t = (await h.ok<S>(a.actor, TEST, { id: s!.id })).testWebhookSubscription;
    expect(t.id).toMatch(/^[0-9a-f]{32}$/);
    expect(t).toMatchObject({
      event: 'webhook_test',
      status: 'Pending',
      attempts: [],
      subscriptionId: s!.id,
    });
    expect(t.payload).toEqual({
      Name: 'webhook_test',
      OccurredDateUtc: h.clock.now().toISOString(),
      CarShareId: h.carShare.id,
      SubscriptionId: s!.id,
    });
    const list = await h.ok<S>(a.actor, DELIVERIES, { subscriptionId: s!.id, status: 'Pending' });
    expect(list.webhookDeliveries.nodes.map((d: S) => d.id)).toEqual([t.id]);
    expect((await h.ok<S>(a.actor, DELIVERIES, { status: 'Failed' })).webhookDeliveries.total).toBe(0);
    expect((await h.ok<S>(b.actor, DELIVERIES, {})).webhookDeliveries.total).toBe(0);
    expect(errorOf(await h.run(b.actor, DELIVERIES, { subscriptionId: s!.id })).code).toBe('NotFound');
    expect(errorOf(await h.run(b.actor, DELIVERY, { id: t.id })).code).toBe('NotFound');
    expect(errorOf(await h.run(b.actor, REDELIVER, { id: t.id })).code).toBe('NotFound');
    expect(errorOf(await h.run(a.actor, DELIVERY, { id: 'abc' }))).toMatchObject({
      code: 'InvalidFormat',
      field: 'id',
    });
    expect(errorOf(await h.run(a.actor, DELIVERY, { id: 'f'.repeat(32) })).code).toBe('NotFound');
    expect(errorOf(await h.run(a.actor, REDELIVER, { id: t.id })).code).toBe('InvalidStateTransition');
  });
});
