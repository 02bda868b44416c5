// REST routes of bookings (actions, feedback, lock/unlock), client applications and webhooks over HTTPS:
// each route's success and error.
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { BOOKING_FIELDS, inHours, type World, world } from '../factories/bookings.js';
import { asOps } from '../support/actors.js';
import { PUBLIC_URL, restOf, useRest } from './support.js';

const env = useRest({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, resetEach: true });

let w: World;
let owner: string;
let borrower: string;
let opsToken: string;
beforeEach(async () => {
  env.h.clock.set('2026-07-01T10:00:00.000Z');
  w = await world(env.h);
  owner = env.tokenFor(w.owner.actor);
  borrower = env.tokenFor(w.borrower.actor);
  opsToken = env.tokenFor(asOps());
});

async function request(startH = 24, endH = 26) {
  const r = await env.call('POST', `/api/cars/${w.carId}/bookings`, {
    token: borrower,
    body: { StartDateUtc: inHours(env.h, startH), EndDateUtc: inHours(env.h, endH), Message: 'Hello' },
  });
  expect(r.status).toBe(201);
  return r.json.Booking;
}

describe('bookings', () => {
  it('POST /api/cars/{Id}/bookings: 201 with the Booking and its Location; rule violations are 400', async () => {
    const r = await env.call('POST', `/api/cars/${w.carId}/bookings`, {
      token: borrower,
      body: { StartDateUtc: inHours(env.h, 24), EndDateUtc: inHours(env.h, 26) },
    });
    expect(r.status).toBe(201);
    expect(r.json.Booking).toMatchObject({ CarId: w.carId, BorrowerId: w.borrower.id, State: 'Pending' });
    expect(r.headers.get('location')).toBe(`${PUBLIC_URL}/api/bookings/${r.json.Booking.Id}`);
    const soon = await env.call('POST', `/api/cars/${w.carId}/bookings`, {
      token: borrower,
      body: { StartDateUtc: inHours(env.h, 0.1), EndDateUtc: inHours(env.h, 2) },
    });
    expect(soon.status).toBe(400);
    expect(soon.json.ResponseStatus).toMatchObject({
      ErrorCode: 'RuleViolation',
      Meta: { Rule: 'StartTooSoon' },
    });
    expect(
      (
        await env.call('POST', `/api/cars/${w.carId}/bookings`, {
          token: owner,
          body: { StartDateUtc: inHours(env.h, 30), EndDateUtc: inHours(env.h, 32) },
        })
      ).status,
    ).toBe(403);
  });

  it('GET /api/bookings, /api/bookings/{Id} and /api/cars/{Id}/bookings equal GraphQL; strangers get 404', async () => {
    const b = await request();
    const mine = await env.call('GET', '/api/bookings', { token: borrower });
    expect(mine.json.Bookings.map((x: any) => x.Id)).toEqual([b.Id]);
    expect(mine.json.Metadata).toMatchObject({
      Sort: { By: 'StartDateUtc', Direction: 'Ascending' },
      FromUtc: expect.any(String),
    });
    const one = await env.call('GET', `/api/bookings/${b.Id}?embed=none`, { token: owner });
    const g = await env.h.ok<{ booking: unknown }>(
      w.owner.actor,
      `query($id: UUID!) { booking(id: $id) { ${BOOKING_FIELDS} } }`,
      {
        id: b.Id,
      },
    );
    expect(one.json.Booking).toMatchObject(restOf(g.booking) as object);
    const deep = await env.call('GET', `/api/bookings/${b.Id}`, { token: owner });
    expect(deep.json.Booking.Car.Id).toBe(w.carId);
    expect(deep.json.Booking.Borrower.UserId).toBe(w.borrower.id);
    const ofCar = await env.call('GET', `/api/cars/${w.carId}/bookings?states=pending,approved`, {
      token: owner,
    });
    expect(ofCar.json.Bookings.map((x: any) => x.Id)).toEqual([b.Id]);
    const stranger = env.tokenFor((await createUser(env.h)).actor);
    expect((await env.call('GET', `/api/bookings/${b.Id}`, { token: stranger })).status).toBe(404);
    expect((await env.call('GET', '/api/bookings?states=Flying', { token: borrower })).status).toBe(400);
  });

  it('approve, use, lock/unlock, extend, return, complete, feedback: 202s; wrong states 409', async () => {
    const b = await request();
    expect((await env.call('PUT', `/api/bookings/${b.Id}/use`, { token: borrower })).status).toBe(409);
    const approved = await env.call('PUT', `/api/bookings/${b.Id}/approve`, { token: owner });
    expect(approved.status).toBe(202);
    expect(approved.json.Booking.State).toBe('Approved');
    expect(
      (await env.call('PUT', `/api/bookings/${b.Id}/approve`, { token: owner })).json.ResponseStatus,
    ).toMatchObject({
      ErrorCode: 'InvalidStateTransition',
    });
    const early = await env.call('PUT', `/api/bookings/${b.Id}/use`, { token: borrower });
    const opens = new Date(new Date(b.StartDateUtc).getTime() - 15 * 60_000).toISOString();
    const closes = new Date(new Date(b.EndDateUtc).getTime() - 15 * 60_000).toISOString();
    expect(early.status).toBe(400);
    expect(early.json.ResponseStatus).toMatchObject({
      ErrorCode: 'RuleViolation',
      Meta: { Rule: 'OutsideUseWindow', OpensDateUtc: opens, ClosesDateUtc: closes },
    });
    expect(early.json.ResponseStatus.Message).toContain(`from ${opens} until ${closes}`);
    env.h.clock.set(new Date(new Date(b.StartDateUtc).getTime() - 10 * 60_000));
    expect((await env.call('PUT', `/api/bookings/${b.Id}/use`, { token: borrower })).json.Booking.State).toBe(
      'InUse',
    );
    const unlocked = await env.call('PUT', `/api/cars/${w.carId}/unlock`, { token: borrower });
    expect(unlocked.status).toBe(202);
    expect(unlocked.json.Car.LockState).toBe('Unlocked');
    expect((await env.call('PUT', `/api/cars/${w.carId}/lock`, { token: owner })).status).toBe(409);
    expect((await env.call('PUT', `/api/cars/${w.carId}/lock`, { token: borrower })).json.Car.LockState).toBe(
      'Locked',
    );
    const extended = await env.call('PUT', `/api/bookings/${b.Id}/extend`, {
      token: borrower,
      body: { EndDateUtc: new Date(new Date(b.EndDateUtc).getTime() + 3_600_000).toISOString() },
    });
    expect(extended.status).toBe(202);
    expect(
      (
        await env.call('PUT', `/api/bookings/${b.Id}/extend`, {
          token: borrower,
          body: { EndDateUtc: 'later' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await env.call('PUT', `/api/bookings/${b.Id}/return`, { token: borrower })).json.Booking.State,
    ).toBe('Returned');
    expect((await env.call('PUT', `/api/bookings/${b.Id}/complete`, { token: borrower })).status).toBe(403);
    expect(
      (await env.call('PUT', `/api/bookings/${b.Id}/complete`, { token: owner })).json.Booking.State,
    ).toBe('Completed');

    const fb = await env.call('POST', `/api/bookings/${b.Id}/feedbacks`, {
      token: borrower,
      body: { Rating: 5, Comment: 'Lovely' },
    });
    expect(fb.status).toBe(201);
    expect(fb.headers.get('location')).toBe(`${PUBLIC_URL}/api/feedbacks/${fb.json.Feedback.Id}`);
    expect(
      (await env.call('POST', `/api/bookings/${b.Id}/feedbacks`, { token: borrower, body: { Rating: 4 } }))
        .status,
    ).toBe(409);
    expect(
      (await env.call('GET', `/api/ratings/Car/${w.carId}`, { token: owner })).json.Rating,
    ).toMatchObject({ Count: 1, Average: 5 });
  });

  it('decline and cancel: 202; the wrong party 403', async () => {
    const a = await request(24, 26);
    expect((await env.call('PUT', `/api/bookings/${a.Id}/decline`, { token: borrower })).status).toBe(403);
    const d = await env.call('PUT', `/api/bookings/${a.Id}/decline`, {
      token: owner,
      body: { Reason: 'Busy' },
    });
    expect(d.json.Booking.State).toBe('Declined');
    const c = await request(30, 32);
    const x = await env.call('PUT', `/api/bookings/${c.Id}/cancel`, {
      token: borrower,
      body: { Reason: 'Plans changed' },
    });
    expect(x.status).toBe(202);
    expect(x.json.Booking).toMatchObject({ State: 'Cancelled', CancellationReason: 'Plans changed' });
    expect(
      (
        await env.call('PUT', `/api/bookings/${randomUUID()}/cancel`, {
          token: borrower,
          body: { Reason: 'x' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('client applications', () => {
  it('ops create, read, patch, rotate, suspend, reactivate and delete; users may not', async () => {
    const user = env.tokenFor(w.owner.actor);
    const body = { Name: 'Partner app', GrantTypes: 'client_credentials', AllowedScopes: ['cars:read'] };
    expect((await env.call('POST', '/api/clientapplications', { token: user, body })).status).toBe(403);
    const c = await env.call('POST', '/api/clientapplications', { token: opsToken, body });
    expect(c.status).toBe(201);
    const app = c.json.ClientApplication;
    expect(app).toMatchObject({
      Name: 'Partner app',
      GrantTypes: ['client_credentials'],
      ClientSecret: expect.any(String),
    });
    expect(c.headers.get('location')).toBe(`${PUBLIC_URL}/api/clientapplications/${app.Id}`);
    const got = await env.call('GET', `/api/clientapplications/${app.Id}`, { token: opsToken });
    expect(got.json.ClientApplication).not.toHaveProperty('ClientSecret');
    expect(
      (await env.call('GET', '/api/clientapplications', { token: opsToken })).json.ClientApplications.length,
    ).toBeGreaterThan(0);
    expect(
      (
        await env.call('PATCH', `/api/clientapplications/${app.Id}`, {
          token: opsToken,
          body: { Name: 'Partner' },
        })
      ).json.ClientApplication.Name,
    ).toBe('Partner');
    expect(
      (await env.call('PATCH', `/api/clientapplications/${app.Id}`, { token: opsToken, body: { Name: 'P' } }))
        .status,
    ).toBe(400);
    const rotated = await env.call('PUT', `/api/clientapplications/${app.Id}/rotate-secret`, {
      token: opsToken,
    });
    expect(rotated.json.ClientApplication.ClientSecret).not.toBe(app.ClientSecret);
    expect(
      (await env.call('PUT', `/api/clientapplications/${app.Id}/suspend`, { token: opsToken })).json
        .ClientApplication.Status,
    ).toBe('Suspended');
    expect(
      (await env.call('PUT', `/api/clientapplications/${app.Id}/reactivate`, { token: opsToken })).json
        .ClientApplication.Status,
    ).toBe('Active');
    expect((await env.call('DELETE', `/api/clientapplications/${app.Id}`, { token: opsToken })).status).toBe(
      204,
    );
    expect((await env.call('GET', `/api/clientapplications/${app.Id}`, { token: opsToken })).status).toBe(
      404,
    );
  });
});

describe('webhooks', () => {
  it('subscribe (201, several at once), list, get, patch, rotate, test, deliveries, redeliver, delete', async () => {
    const token = opsToken;
    const bad = await env.call('POST', '/api/webhooks/subscriptions', {
      token,
      body: { Name: 'Hooks', Event: 'nonsense', Url: 'https://127.0.0.1:9/hook' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus.Errors[0].FieldName).toBe('Event');
    const c = await env.call('POST', '/api/webhooks/subscriptions', {
      token,
      body: {
        Name: 'Hooks',
        Events: 'carbooking_approve carbooking_cancel',
        Config: { Url: 'https://127.0.0.1:9/hook' },
      },
    });
    expect(c.status).toBe(201);
    expect(Object.keys(c.json)).toEqual(['WebhookSubscriptions']);
    const [first, second] = c.json.WebhookSubscriptions;
    expect(second.Event).toBe('carbooking_cancel');
    expect(first.Secret).toMatch(/^whsec_/);
    expect(c.headers.get('location')).toBe(`${PUBLIC_URL}/api/webhooks/subscriptions/${first.Id}`);
    expect(
      (await env.call('GET', '/api/webhooks/subscriptions', { token })).json.WebhookSubscriptions,
    ).toHaveLength(2);
    const got = await env.call('GET', `/api/webhooks/subscriptions/${first.Id}`, { token });
    expect(got.json.WebhookSubscription).not.toHaveProperty('Secret');
    const p = await env.call('PATCH', `/api/webhooks/subscriptions/${first.Id}`, {
      token,
      body: { IsActive: false },
    });
    expect(p.json.WebhookSubscription).toMatchObject({ IsActive: false, DisabledReason: 'Manual' });
    await env.call('PATCH', `/api/webhooks/subscriptions/${first.Id}`, { token, body: { IsActive: true } });
    const rotated = await env.call('PUT', `/api/webhooks/subscriptions/${first.Id}/rotate-secret`, { token });
    expect(rotated.json.WebhookSubscription.Secret).toMatch(/^whsec_/);
    const t = await env.call('PUT', `/api/webhooks/subscriptions/${first.Id}/test`, { token });
    expect(t.status).toBe(202);
    const delivery = t.json.WebhookDelivery;
    expect(delivery.Id).toMatch(/^[0-9a-f]{32}$/);
    expect(delivery.Payload).toMatchObject({ Name: 'webhook_test', SubscriptionId: first.Id });
    const list = await env.call('GET', `/api/webhooks/subscriptions/${first.Id}/deliveries`, { token });
    expect(list.json.WebhookDeliveries.map((d: any) => d.Id)).toContain(delivery.Id);
    expect(
      (await env.call('GET', `/api/webhooks/deliveries/${delivery.Id}`, { token })).json.WebhookDelivery.Id,
    ).toBe(delivery.Id);
    expect(
      (await env.call('GET', '/api/webhooks/deliveries/not-hex', { token })).json.ResponseStatus.Errors[0]
        .FieldName,
    ).toBe('Id');
    expect(
      (await env.call('GET', `/api/webhooks/deliveries/${randomBytes(16).toString('hex')}`, { token }))
        .status,
    ).toBe(404);
    const re = await env.call('PUT', `/api/webhooks/deliveries/${delivery.Id}/redeliver`, { token });
    expect([202, 409]).toContain(re.status);
    expect((await env.call('DELETE', `/api/webhooks/subscriptions/${second.Id}`, { token })).status).toBe(
      204,
    );
    expect((await env.call('GET', `/api/webhooks/subscriptions/${second.Id}`, { token })).status).toBe(404);
  });
});
