// GraphQL subscriptions over graphql-ws on the real HTTPS listener: events published after commit with the
// webhook visibility rules, narrowed by name, whether or not the instance delivers webhooks; 4401 without a good
// token; across instances through Redis; only to listeners of the event's car share.
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, createClient } from 'graphql-ws';
import { pino } from 'pino';
import { Agent, fetch } from 'undici';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Actor } from '../../src/access/actor.js';
import { type Authenticator, bearerToken } from '../../src/access/authenticate.js';
import { CAR_SHARE_CHANNEL } from '../../src/carshares/registry.js';
import { loadConfig } from '../../src/config.js';
import { recordEvent } from '../../src/events/outbox.js';
import { type Service, startService } from '../../src/service.js';
import { systemClock } from '../../src/shared/clock.js';
import { unauthorized } from '../../src/shared/errors.js';
import { createUser } from '../factories/accounts.js';
import { bookingIn, world } from '../factories/bookings.js';
import { asClient, asOps, asUser } from '../support/actors.js';
import { scoped } from '../support/scope.js';
import { waitFor } from '../support/wait.js';
import { CREATE, isMarker, mark, rows, type S, useWebhookHarness } from './support.js';

const tokens = new Map<string, Actor>();
const authenticator: Authenticator = {
  async actorFor(authorization) {
    const t = bearerToken(authorization);
    if (t === undefined) return { kind: 'anonymous', id: null, roles: [], scopes: [] };
    const a = tokens.get(t);
    if (!a) throw unauthorized('The access token is not valid');
    return a;
  },
};
const tokenFor = (a: Actor): string => {
  const t = `t${tokens.size}${Math.random().toString(36).slice(2)}`;
  tokens.set(t, a);
  return t;
};

const h = useWebhookHarness();
const dirs: string[] = [];
const running: Service[] = [];
const clients: Client[] = [];

async function start(opts: { redis?: boolean; webhooks?: boolean } = {}): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'carshare-ws-'));
  dirs.push(dir);
  const config = loadConfig({
    PORT: '0',
    HTTP_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    DATABASE_URL: inject('databaseUrl'),
    OPS_EMAIL: 'ops@example.com',
    OPS_PASSWORD: 'operator passphrase for tests',
    LOG_LEVEL: 'silent',
    ...(opts.redis ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}),
  });
  const service = await startService({
    config,
    log: pino({ level: 'silent' }),
    timers: false,
    authenticator,
    webhooks: opts.webhooks === false ? false : { pollMs: 50 },
  });
  running.push(service);
  return service;
}

/** A graphql-ws client of the service, addressed to `host` (a car share's) when given, as a proxy would send it. */
function connect(
  service: Service,
  token: string | undefined,
  closed?: (code: number) => void,
  host?: string,
): Client {
  const ca = service.cert;
  class TrustingWS extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      // At another host the TLS name stays localhost: the certificate trusted here is the default one.
      super(url, protocols, { ca, ...(host ? { headers: { host }, servername: 'localhost' } : {}) });
    }
  }
  const client = createClient({
    url: `wss://localhost:${service.port}/graphql`,
    webSocketImpl: TrustingWS,
    connectionParams: token ? { Authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    on: { closed: (e) => closed?.((e as { code: number }).code) },
    onNonLazyError: () => undefined,
  });
  clients.push(client);
  return client;
}

/** Collects events from a subscription until the test ends. */
function listen(client: Client, names?: string[]): S[] {
  const got: S[] = [];
  const query = names
    ? `subscription($names: [String!]) { events(names: $names) { name occurredDateUtc payload } }`
    : 'subscription { events { name occurredDateUtc payload } }';
  client.subscribe(
    { query, ...(names ? { variables: { names } } : {}) },
    {
      next: (r) => {
        if (r.data) got.push((r.data as S).events);
        else got.push({ errors: r.errors });
      },
      error: (e) => got.push({ error: e }),
      complete: () => undefined,
    },
  );
  return got;
}

async function emit(
  name: 'profile_update' | 'useraccount_create',
  userId: string,
  carShareId?: string,
): Promise<string> {
  const em = scoped(h.orm, carShareId);
  let id = '';
  await em.transactional(async (tx) => {
    const ev =
      name === 'profile_update'
        ? recordEvent(
            { em: tx, clock: systemClock },
            name,
            { id: userId, userId, changedFields: ['Description'] },
            [userId],
          )
        : recordEvent({ em: tx, clock: systemClock }, name, { id: userId, createdDateUtc: new Date() }, [
            userId,
          ]);
    id = ev.id;
  });
  return id;
}

/** A GraphQL request to the service over HTTPS, as a client would send it. */
async function post(service: Service, actor: Actor, query: string, variables: S): Promise<S> {
  const agent = new Agent({ connect: { ca: service.cert } });
  try {
    const r = await fetch(`https://localhost:${service.port}/graphql`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenFor(actor)}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await r.json()) as S;
  } finally {
    await agent.close();
  }
}

/** The landing page's JSON at a car share's host (the TLS name stays localhost, whose certificate is trusted). */
function landingAt(service: Service, host: string): Promise<S> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: 'localhost',
        port: service.port,
        path: '/',
        ca: service.cert,
        servername: 'localhost',
        headers: { host, accept: 'application/json' },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString('utf8');
        });
        res.on('end', () => resolve(JSON.parse(body) as S));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** What a listener got besides the markers. */
const real = (inbox: S[]): S[] => inbox.filter((e) => !isMarker(e));

/** Markers of `name` about `audience` until every inbox has one (see `mark`). */
const marked = (inboxes: S[][], name: 'useraccount_create' | 'carbooking_approve', audience: string[]) =>
  mark(h, inboxes, (ctx, id) => {
    const now = new Date();
    if (name === 'useraccount_create') recordEvent(ctx, name, { id, createdDateUtc: now }, audience);
    else {
      const fields = { id, reference: 'MARKER', carId: id, borrowerId: id, state: 'Approved' };
      recordEvent(ctx, name, { ...fields, startDateUtc: now, endDateUtc: now }, audience);
    }
  });

/** Start-up records events of its own (the first operator's account): let them be published first. */
const drained = () =>
  waitFor(
    async () =>
      (
        await h.orm.em
          .fork()
          .getConnection()
          .execute('select id from outbox_event where published_date_utc is null')
      ).length === 0,
    { what: 'the outbox to drain' },
  );

afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  for (const s of running.splice(0)) await s.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('subscription { events }', () => {
  it('publishes committed events with the webhook visibility rules and the names filter', async () => {
    const service = await start();
    await drained();
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const ofA = listen(connect(service, tokenFor(asUser(a))));
    const ofOps = listen(connect(service, tokenFor(asOps())));
    const ofApp = listen(connect(service, tokenFor(asClient(['webhooks:read']))), ['useraccount_create']);
    // A useraccount_create about A reaches all three.
    await marked([ofA, ofOps, ofApp], 'useraccount_create', [a]);
    await emit('profile_update', a);
    await emit('profile_update', b);
    const created = await emit('useraccount_create', b);
    await marked([ofA, ofOps, ofApp], 'useraccount_create', [a]);
    expect(real(ofA).map((e) => [e.name, e.payload.UserId])).toEqual([['profile_update', a]]);
    expect(real(ofOps).map((e) => e.name)).toEqual([
      'profile_update',
      'profile_update',
      'useraccount_create',
    ]);
    expect(real(ofApp).map((e) => [e.name, e.payload.Id])).toEqual([['useraccount_create', b]]);
    const [row] = await h.orm.em
      .fork()
      .getConnection()
      .execute<S[]>('select payload, car_share_id from outbox_event where id = ?', [created]);
    // The outbox row's payload, and the car share it belongs to (CONTRACT §20).
    expect(row!.car_share_id).toBe(h.carShare.id);
    expect(real(ofApp)[0]!.payload).toEqual({ ...row!.payload, CarShareId: h.carShare.id });
    expect(real(ofApp)[0]!.occurredDateUtc).toBe(row!.payload.OccurredDateUtc);
  });

  it("shows a user's carbooking_approve listener their own bookings' approvals only", async () => {
    const service = await start();
    const w1 = await world(h);
    const w2 = await world(h);
    await drained();
    const ofBorrower1 = listen(connect(service, tokenFor(w1.borrower.actor)), ['carbooking_approve']);
    const ofOwner2 = listen(connect(service, tokenFor(w2.owner.actor)), ['carbooking_approve']);
    const ofOps = listen(connect(service, tokenFor(asOps())), ['carbooking_approve']);
    const inboxes = [ofBorrower1, ofOwner2, ofOps];
    const audience = [w1.borrower.id, w2.owner.id];
    await marked(inboxes, 'carbooking_approve', audience);
    const mine = await bookingIn(h, w1, 'Approved');
    const theirs = await bookingIn(h, w2, 'Approved');
    await marked(inboxes, 'carbooking_approve', audience);
    expect(real(ofBorrower1).map((e) => e.payload.Id)).toEqual([mine.id]);
    expect(real(ofOwner2).map((e) => e.payload.Id)).toEqual([theirs.id]);
    expect(real(ofOps).map((e) => e.payload.Id)).toEqual([mine.id, theirs.id]);
  });

  it('reaches subscribers of an instance that does not deliver webhooks', async () => {
    const service = await start({ webhooks: false });
    const u = await createUser(h);
    const [sub] = (
      await h.ok<{ createWebhookSubscriptions: S[] }>(u.actor, CREATE, {
        input: {
          name: 'Kept for later',
          events: ['profile_update'],
          config: { url: 'https://127.0.0.1:9/hook' },
        },
      })
    ).createWebhookSubscriptions;
    // Markers of another event than the subscription's (useraccount_create) show the listeners are live without
    // adding deliveries to the one this test counts.
    const names = ['profile_update', 'useraccount_create'];
    const ofUser = listen(connect(service, tokenFor(u.actor)), names);
    const ofOps = listen(connect(service, tokenFor(asOps())), names);
    await marked([ofUser, ofOps], 'useraccount_create', [u.id]);
    const r = await post(
      service,
      u.actor,
      'mutation($id: UUID!, $input: UpdateProfileInput!) { updateProfile(id: $id, input: $input) { id } }',
      { id: u.profileId, input: { description: 'Heard without webhook delivery' } },
    );
    expect(r.errors).toBeUndefined();
    await waitFor(() => real(ofUser).length >= 1 && real(ofOps).length >= 1, {
      what: 'the event at both subscribers',
    });
    // Published in commit order: once a later marker has arrived, nothing else is on its way.
    await marked([ofUser, ofOps], 'useraccount_create', [u.id]);
    // useraccount_create is heard for the markers only; the user's own creation, committed before the listeners,
    // may still be published after they connect (the relay takes car shares in turn), so it is not counted here.
    const updates = (inbox: S[]) => real(inbox).filter((e) => e.name === 'profile_update');
    expect(updates(ofUser).map((e) => [e.name, e.payload.UserId, e.payload.ChangedFields])).toEqual([
      ['profile_update', u.id, ['Description']],
    ]);
    expect(updates(ofOps)).toEqual(updates(ofUser));
    // The event was fanned out all the same: its delivery waits, unsent, for an instance that delivers.
    const deliveries = await rows(
      h,
      `select d.status, (select count(*)::int from webhook_attempt a where a.delivery_id = d.id) as attempts
        from webhook_delivery d where d.subscription_id = ?`,
      [sub!.id],
    );
    expect(deliveries).toEqual([{ status: 'Pending', attempts: 0 }]);
  });

  it('closes the connection with 4401 when the token is missing or bad', async () => {
    const service = await start({ webhooks: false });
    const codes: number[] = [];
    connect(service, undefined, (c) => codes.push(c));
    connect(service, 'not-a-token', (c) => codes.push(c));
    await waitFor(() => codes.length === 2, { what: 'both connections to close' });
    expect(codes).toEqual([4401, 4401]);
  });

  it('refuses callers without webhooks:read, and unknown event names', async () => {
    const service = await start({ webhooks: false });
    const noScope = listen(connect(service, tokenFor(asUser(crypto.randomUUID(), ['account:read']))));
    const badName = listen(connect(service, tokenFor(asOps())), ['carbooking_explode']);
    await waitFor(() => noScope.length > 0 && badName.length > 0, { what: 'both refusals' });
    expect(JSON.stringify(noScope[0])).toContain('webhooks:read');
    expect(JSON.stringify(badName[0])).toContain('unknown event names');
  });

  it('reaches listeners on every instance through Redis when REDIS_URL is set', async () => {
    // The listener is on the instance that does not deliver; whichever instance relays the event publishes it
    // through Redis.
    const quiet = await start({ redis: true, webhooks: false });
    await start({ redis: true });
    await drained();
    const got = listen(connect(quiet, tokenFor(asOps())));
    await marked([got], 'useraccount_create', []);
    // Start-up's own events may still be on their way through Redis: this test looks for its event by its Id.
    const userId = crypto.randomUUID();
    const id = await emit('profile_update', userId);
    const ofUser = () => got.filter((e) => e.payload.Id === userId);
    await waitFor(() => ofUser().length > 0, { what: 'the event through Redis' });
    const [row] = await h.orm.em
      .fork()
      .getConnection()
      .execute<S[]>('select payload from outbox_event where id = ?', [id]);
    expect(ofUser()[0]!.payload).toEqual({ ...row!.payload, CarShareId: h.carShare.id });
    // Once: a marker recorded after it has arrived, and no second copy before it.
    await marked([got], 'useraccount_create', []);
    expect(ofUser()).toHaveLength(1);
  });

  it("reaches only listeners connected at the event's car share's host, CarShareId included (CONTRACT §20)", async () => {
    const service = await start();
    await drained();
    // A second car share, made as the platform makes one: its row, then the announcement every registry hears.
    const host = `second-${crypto.randomUUID().slice(0, 8)}.cars.example`;
    const owner = h.orm.em.fork().getConnection();
    const [row] = await owner.execute<{ id: string }[]>(
      `insert into car_share (id, base_url, host, name) values (gen_random_uuid(), ?, ?, 'Second') returning id`,
      [`https://${host}`, host],
    );
    const second = row!.id;
    await owner.execute('select pg_notify(?, ?)', [CAR_SHARE_CHANNEL, second]);
    await waitFor(async () => (await landingAt(service, host)).CarShareId === second, {
      what: 'the service to know the second car share',
    });
    const ofFirst = listen(connect(service, tokenFor(asOps())));
    const ofSecond = listen(connect(service, tokenFor(asOps()), undefined, host));
    // Live: each has had an event of its own car share (graphql-ws acknowledges no subscription).
    await marked([ofFirst], 'useraccount_create', []);
    await waitFor(
      async () => {
        await emit('useraccount_create', crypto.randomUUID(), second);
        return waitFor(() => ofSecond.length > 0, { timeoutMs: 1000 }).catch(() => false);
      },
      { what: 'the second car share listener to be live' },
    );
    const [inFirst, inSecond] = [crypto.randomUUID(), crypto.randomUUID()];
    await emit('profile_update', inSecond, second);
    await emit('profile_update', inFirst);
    await waitFor(() => ofSecond.some((e) => e.payload?.Id === inSecond), { what: "the second's event" });
    await marked([ofFirst], 'useraccount_create', []);
    expect(real(ofFirst).map((e) => e.payload.Id)).toEqual([inFirst]);
    expect(real(ofFirst)[0]!.payload.CarShareId).toBe(h.carShare.id);
    const seconds = ofSecond.filter((e) => e.name === 'profile_update');
    expect(seconds.map((e) => e.payload.Id)).toEqual([inSecond]);
    expect(seconds[0]!.payload.CarShareId).toBe(second);
    expect(ofSecond.every((e) => e.payload?.CarShareId === second)).toBe(true);
  });
});
