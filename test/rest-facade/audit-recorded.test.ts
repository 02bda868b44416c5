// The audit trail over HTTPS (CONTRACT §18): every administrative change writes exactly one entry naming the
// actor, the operation, the subject and the response's Request-Id, in the change's own transaction; a refused
// change, or a person acting for themselves, writes none; no secret enters it.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { bookingIn, type World, world } from '../factories/bookings.js';
import { verificationId } from '../factories/verifications.js';
import { asClient, asOps } from '../support/actors.js';
import { type Reply, useRest } from './support.js';

const env = useRest({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, resetEach: true });

type Row = Record<string, string>;
const rows = (): Promise<Row[]> =>
  env.h.orm.em
    .fork()
    .getConnection()
    .execute<Row[]>('select * from audit_entry order by occurred_date_utc, id');

const opsId = randomUUID();
let ops: string;
let w: World;
beforeEach(async () => {
  env.h.clock.set('2026-07-01T10:00:00.000Z');
  ops = env.tokenFor(asOps(opsId));
  w = await world(env.h);
});

/** Runs a change and checks it added exactly one entry, carrying the response's Request-Id. */
async function recorded(
  change: () => Promise<Reply>,
  expected: { action: string; subjectType: string; subjectId?: string },
  actor: { id: string; type: string } = { id: opsId, type: 'UserAccount' },
): Promise<Reply> {
  const before = (await rows()).length;
  const r = await change();
  expect(r.status, r.text).toBeLessThan(300);
  const after = await rows();
  expect(after).toHaveLength(before + 1);
  const entry = after.find((e) => e.request_id === r.headers.get('request-id'));
  expect(entry).toMatchObject({
    actor_id: actor.id,
    actor_type: actor.type,
    action: expected.action,
    subject_type: expected.subjectType,
    ...(expected.subjectId ? { subject_id: expected.subjectId } : {}),
  });
  return r;
}

describe('recorded operations', () => {
  it('client applications: create, update, rotate secret, suspend, reactivate, delete', async () => {
    const created = await recorded(
      () =>
        env.call('POST', '/api/clientapplications', {
          token: ops,
          body: { Name: 'Audited app', GrantTypes: ['client_credentials'], AllowedScopes: ['cars:read'] },
        }),
      { action: 'createClientApplication', subjectType: 'ClientApplication' },
    );
    const id = created.json.ClientApplication.Id as string;
    const secrets = [created.json.ClientApplication.ClientSecret as string];
    const subject = (action: string) => ({ action, subjectType: 'ClientApplication', subjectId: id });
    expect((await rows())[0]!.subject_id).toBe(id);
    await recorded(
      () => env.call('PATCH', `/api/clientapplications/${id}`, { token: ops, body: { Name: 'Renamed app' } }),
      subject('updateClientApplication'),
    );
    const rotated = await recorded(
      () => env.call('PUT', `/api/clientapplications/${id}/rotate-secret`, { token: ops }),
      subject('rotateClientSecret'),
    );
    secrets.push(rotated.json.ClientApplication.ClientSecret);
    await recorded(
      () => env.call('PUT', `/api/clientapplications/${id}/suspend`, { token: ops }),
      subject('suspendClientApplication'),
    );
    await recorded(
      () => env.call('PUT', `/api/clientapplications/${id}/reactivate`, { token: ops }),
      subject('reactivateClientApplication'),
    );
    await recorded(
      () => env.call('DELETE', `/api/clientapplications/${id}`, { token: ops }),
      subject('deleteClientApplication'),
    );
    // No secret, in the table or in what the API answers.
    const stored = JSON.stringify(await rows());
    const served = (await env.call('GET', '/api/audit?limit=1000', { token: ops })).text;
    expect(served).toContain('rotateClientSecret');
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      expect(stored).not.toContain(secret);
      expect(served).not.toContain(secret);
    }
  });

  it('users: created by ops, role change, suspend, reactivate; by an app with users:write too', async () => {
    const created = await recorded(
      () =>
        env.call('POST', '/api/useraccounts', {
          token: ops,
          body: {
            Username: 'grace@example.com',
            Password: 'a long and unusual passphrase',
            FirstName: 'Grace',
            LastName: 'Hopper',
          },
        }),
      { action: 'createUserAccount', subjectType: 'UserAccount' },
    );
    const id = created.json.UserAccount.Id as string;
    const subject = (action: string) => ({ action, subjectType: 'UserAccount', subjectId: id });
    await recorded(
      () => env.call('PATCH', `/api/useraccounts/${id}`, { token: ops, body: { Roles: ['user', 'ops'] } }),
      subject('updateUserAccount'),
    );
    await recorded(
      () => env.call('PUT', `/api/useraccounts/${id}/suspend`, { token: ops }),
      subject('suspendUserAccount'),
    );
    const appId = randomUUID();
    await recorded(
      () =>
        env.call('PUT', `/api/useraccounts/${id}/reactivate`, {
          token: env.tokenFor(asClient(['users:write'], appId)),
        }),
      subject('reactivateUserAccount'),
      { id: appId, type: 'ClientApplication' },
    );
    expect(JSON.stringify(await rows())).not.toContain('a long and unusual passphrase');
  });

  it('verification decisions', async () => {
    const user = await createUser(env.h);
    await env.h.ok(
      user.actor,
      'mutation($id: UUID!) { submitVerification(id: $id, input: { evidence: { phoneNumber: "+14155550123" } }) { status } }',
      {
        id: await verificationId(env.h, user.id, 'PhoneNumber'),
      },
    );
    const phone = await verificationId(env.h, user.id, 'PhoneNumber');
    await recorded(
      () =>
        env.call('PUT', `/api/verifications/${phone}/reject`, { token: ops, body: { Reason: 'Unreadable' } }),
      { action: 'rejectVerification', subjectType: 'Verification', subjectId: phone },
    );
    await env.h.ok(
      user.actor,
      'mutation($id: UUID!) { submitVerification(id: $id, input: { evidence: { phoneNumber: "+14155550123" } }) { status } }',
      {
        id: phone,
      },
    );
    await recorded(() => env.call('PUT', `/api/verifications/${phone}/verify`, { token: ops }), {
      action: 'verifyVerification',
      subjectType: 'Verification',
      subjectId: phone,
    });
    // The evidence itself stays out of the trail.
    expect(JSON.stringify(await rows())).not.toContain('14155550123');
  });

  it('ops on cars and bookings: unlist, list, cancel an approved booking', async () => {
    const car = { subjectType: 'Car', subjectId: w.carId };
    await recorded(() => env.call('PUT', `/api/cars/${w.carId}/unlist`, { token: ops }), {
      action: 'unlistCar',
      ...car,
    });
    await recorded(() => env.call('PUT', `/api/cars/${w.carId}/list`, { token: ops }), {
      action: 'listCar',
      ...car,
    });
    const b = await bookingIn(env.h, w, 'Approved');
    const r = await recorded(
      () => env.call('PUT', `/api/bookings/${b.id}/cancel`, { token: ops, body: { Reason: 'Car damaged' } }),
      { action: 'cancelBooking', subjectType: 'CarBooking', subjectId: b.id },
    );
    expect(r.json.Booking.State).toBe('Cancelled');
  });

  it('webhook subscriptions changed by ops: create, update, rotate, delete; no secret', async () => {
    const created = await recorded(
      () =>
        env.call('POST', '/api/webhooks/subscriptions', {
          token: ops,
          body: {
            Name: 'Audited hook',
            Events: 'carbooking_cancel',
            Config: { Url: 'https://127.0.0.1:9/hook' },
          },
        }),
      { action: 'createWebhookSubscriptions', subjectType: 'WebhookSubscription' },
    );
    const sub = created.json.WebhookSubscriptions[0];
    const subject = (action: string) => ({ action, subjectType: 'WebhookSubscription', subjectId: sub.Id });
    await recorded(
      () =>
        env.call('PATCH', `/api/webhooks/subscriptions/${sub.Id}`, {
          token: ops,
          body: { Name: 'Renamed hook' },
        }),
      subject('updateWebhookSubscription'),
    );
    const rotated = await recorded(
      () => env.call('PUT', `/api/webhooks/subscriptions/${sub.Id}/rotate-secret`, { token: ops }),
      subject('rotateWebhookSubscriptionSecret'),
    );
    await recorded(
      () => env.call('DELETE', `/api/webhooks/subscriptions/${sub.Id}`, { token: ops }),
      subject('deleteWebhookSubscription'),
    );
    const stored = JSON.stringify(await rows());
    for (const secret of [sub.Secret, rotated.json.WebhookSubscription.Secret]) {
      expect(secret).toMatch(/^whsec_/);
      expect(stored).not.toContain(secret);
    }
  });
});

describe('what writes nothing', () => {
  it('a refused or failed change, and a person acting for themselves', async () => {
    const b = await bookingIn(env.h, w, 'Pending');
    const attempts = [
      // unknown subject (404), ops cancelling a Pending request (409), an invalid field (400)
      await env.call('PUT', `/api/clientapplications/${randomUUID()}/suspend`, { token: ops }),
      await env.call('PUT', `/api/bookings/${b.id}/cancel`, { token: ops, body: { Reason: 'No' } }),
      await env.call('PATCH', `/api/cars/${w.carId}`, { token: ops, body: { Seats: 40 } }),
      // not allowed at all (403)
      await env.call('POST', '/api/clientapplications', {
        token: env.tokenFor(w.owner.actor),
        body: { Name: 'Nope', GrantTypes: ['client_credentials'] },
      }),
    ];
    expect(attempts.map((r) => r.status)).toEqual([404, 409, 400, 403]);
    // The owner unlisting their own car is no administrative change.
    const own = await env.call('PUT', `/api/cars/${w.carId}/unlist`, { token: env.tokenFor(w.owner.actor) });
    expect(own.status).toBe(202);
    // Nor is a person changing their own account, or an app managing its own webhook subscriptions.
    const self = await env.call('PATCH', `/api/useraccounts/${w.owner.id}`, {
      token: env.tokenFor(w.owner.actor),
      body: { Username: 'renamed.owner@example.com' },
    });
    expect(self.status).toBe(202);
    const hook = await env.call('POST', '/api/webhooks/subscriptions', {
      token: env.tokenFor(asClient(['webhooks:write'])),
      body: { Name: 'Own hook', Events: 'carbooking_cancel', Config: { Url: 'https://127.0.0.1:9/own' } },
    });
    expect(hook.status).toBe(201);
    expect(await rows()).toEqual([]);
  });
});
