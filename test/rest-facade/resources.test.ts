// REST routes of verifications, ratings, cars, unavailabilities and feedback over HTTPS: each route's
// success and error, compared with the same GraphQL operation.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../factories/accounts.js';
import { bookingFacts, leaveFeedback } from '../factories/feedback.js';
import { asOps } from '../support/actors.js';
import { PUBLIC_URL, REST_CAR, restOf, useRest } from './support.js';

const env = useRest({ resetEach: true });

let owner: TestUser;
let token: string;
let opsToken: string;
beforeEach(async () => {
  owner = await createUser(env.h);
  token = env.tokenFor(owner.actor);
  opsToken = env.tokenFor(asOps());
});

async function newCar(body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await env.call('POST', '/api/cars', { token, body: { ...REST_CAR, ...body } });
  expect(r.status).toBe(201);
  return r.json.Car;
}

const VERIFICATION = `id subjectType subjectId kind status evidence expiresDateUtc decidedDateUtc decidedById reason createdDateUtc lastModifiedDateUtc`;

describe('verifications', () => {
  it('GET /api/verifications searches the caller’s own, equal to GraphQL; a bad status is 400 naming Status', async () => {
    const r = await env.call('GET', '/api/verifications?sort=kind', { token });
    expect(r.status).toBe(200);
    const g = await env.h.ok<{ verifications: { nodes: unknown[] } }>(
      owner.actor,
      `{ verifications(sort: "kind") { nodes { ${VERIFICATION} } } }`,
    );
    expect(r.json.Verifications).toEqual(restOf(g.verifications.nodes));
    expect(r.json.Metadata.Sort).toEqual({ By: 'Kind', Direction: 'Ascending' });
    const bad = await env.call('GET', '/api/verifications?status=Maybe', { token });
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus.Errors[0]).toMatchObject({
      FieldName: 'Status',
      ErrorCode: 'InvalidValue',
    });
  });

  it('GET /api/verifications/{Id}, submit, verify and reject', async () => {
    const list = await env.call('GET', '/api/verifications?kind=email', { token });
    const id = list.json.Verifications[0].Id;
    const one = await env.call('GET', `/api/verifications/${id}`, { token });
    expect(one.status).toBe(200);
    expect(one.json.Verification).toEqual(list.json.Verifications[0]);
    expect((await env.call('GET', `/api/verifications/${randomUUID()}`, { token })).status).toBe(404);

    const bad = await env.call('PUT', `/api/verifications/${id}/submit`, {
      token,
      body: { Evidence: { EmailAddress: 'nope' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus.Errors[0].FieldName).toBe('Evidence.EmailAddress');
    expect(bad.json.ResponseStatus.Errors[0].Message).toMatch(/^Evidence\.EmailAddress must be /);

    const sub = await env.call('PUT', `/api/verifications/${id}/submit`, {
      token,
      body: { evidence: { email_address: owner.username } },
    });
    expect(sub.status).toBe(202);
    expect(sub.json.Verification).toMatchObject({
      Status: 'Pending',
      Evidence: { EmailAddress: owner.username },
    });

    expect((await env.call('PUT', `/api/verifications/${id}/verify`, { token })).status).toBe(403);
    const ok = await env.call('PUT', `/api/verifications/${id}/verify`, {
      token: opsToken,
      body: { Reason: 'Checked' },
    });
    expect(ok.status).toBe(202);
    expect(ok.json.Verification).toMatchObject({ Status: 'Verified', Reason: 'Checked' });
    const again = await env.call('PUT', `/api/verifications/${id}/reject`, { token: opsToken });
    expect(again.status).toBe(409);
    expect(again.json.ResponseStatus.ErrorCode).toBe('InvalidStateTransition');

    const phone = (await env.call('GET', '/api/verifications?kind=PhoneNumber', { token })).json
      .Verifications[0].Id;
    await env.call('PUT', `/api/verifications/${phone}/submit`, {
      token,
      body: { Evidence: { PhoneNumber: '+14155550123' } },
    });
    const rej = await env.call('PUT', `/api/verifications/${phone}/reject`, {
      token: opsToken,
      body: { reason: 'Unreadable' },
    });
    expect(rej.status).toBe(202);
    expect(rej.json.Verification.Status).toBe('Rejected');
  });
});

describe('ratings', () => {
  it('GET /api/ratings/{SubjectType}/{SubjectId} answers the rating; a bad subject type is 400, a bad id 400', async () => {
    const r = await env.call('GET', `/api/ratings/UserAccount/${owner.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.json.Rating).toMatchObject({ SubjectType: 'UserAccount', SubjectId: owner.id, Count: 0 });
    expect(r.json.Rating).not.toHaveProperty('Average');
    const lower = await env.call('GET', `/api/ratings/useraccount/${owner.id}`, { token });
    expect(lower.json).toEqual(r.json);
    const bad = await env.call('GET', `/api/ratings/Planet/${owner.id}`, { token });
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus.Errors[0].FieldName).toBe('SubjectType');
    expect(
      (await env.call('GET', '/api/ratings/Car/123', { token })).json.ResponseStatus.Errors[0].FieldName,
    ).toBe('SubjectId');
  });
});

describe('cars', () => {
  it('POST /api/cars creates: 201 with Location; GET /api/cars/{Id} equals the GraphQL car', async () => {
    const r = await env.call('POST', '/api/cars', { token, body: REST_CAR });
    expect(r.status).toBe(201);
    const id = r.json.Car.Id;
    expect(r.headers.get('location')).toBe(`${PUBLIC_URL}/api/cars/${id}`);
    expect(r.json.Car).toMatchObject({
      ...REST_CAR,
      OwnerId: owner.id,
      Status: 'Draft',
      LockState: 'Locked',
    });
    const get = await env.call('GET', `/api/cars/${id}`, { token });
    expect(get.status).toBe(200);
    const g = await env.h.ok<{ car: unknown }>(
      owner.actor,
      `query($id: UUID!) { car(id: $id) { id ownerId make model year color transmission seats description
        licensePlate { jurisdiction number } homeLocation { address latitude longitude } hourlyRate { amount currency }
        autoApprove minimumBookingMinutes maximumBookingMinutes status isVerified lockState lockStateChangedDateUtc
        createdDateUtc lastModifiedDateUtc
        rating { id subjectType subjectId average count createdDateUtc lastModifiedDateUtc }
        verifications { ${VERIFICATION} }
        owner { id userId firstName lastName displayName phoneNumber description avatarUrl createdDateUtc lastModifiedDateUtc
          rating { id subjectType subjectId average count createdDateUtc lastModifiedDateUtc } } } }`,
      { id },
    );
    expect(get.json.Car).toEqual(restOf(g.car));
  });

  it('POST /api/cars with an invalid body names the fields', async () => {
    const r = await env.call('POST', '/api/cars', { token, body: { ...REST_CAR, Seats: 12, Make: 'X' } });
    expect(r.status).toBe(400);
    expect(r.json.ResponseStatus.Errors.map((e: any) => e.FieldName).sort()).toEqual(['Make', 'Seats']);
    const empty = await env.call('POST', '/api/cars', { token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.json.ResponseStatus.ErrorCode).toBe('NotEmpty');
    expect(empty.json.ResponseStatus.Errors.map((e: any) => e.FieldName)).toContain('Make');
    // Messages name the field as FieldName does: `Make must …`, one capitalisation style.
    for (const e of [...r.json.ResponseStatus.Errors, ...empty.json.ResponseStatus.Errors])
      expect(e.Message.startsWith(`${e.FieldName} `), e.Message).toBe(true);
  });

  it('GET /api/cars searches; PATCH, list, unlist, DELETE', async () => {
    const car = await newCar();
    const search = await env.call('GET', `/api/cars?ownerid=${owner.id}`, { token });
    expect(search.status).toBe(200);
    expect(search.json.Cars.map((c: any) => c.Id)).toEqual([car.Id]);
    expect(search.json.Cars[0]).not.toHaveProperty('Rating');
    expect((await env.call('GET', '/api/cars?ownerid=nope', { token })).status).toBe(400);

    const p = await env.call('PATCH', `/api/cars/${car.Id}`, { token, body: { Model: 'Yaris' } });
    expect(p.status).toBe(202);
    expect(p.json.Car).toMatchObject({ Model: 'Yaris', Make: 'Toyota', Seats: 5 });
    expect((await env.call('PATCH', `/api/cars/${car.Id}`, { token, body: { Year: 1800 } })).status).toBe(
      400,
    );

    const l = await env.call('PUT', `/api/cars/${car.Id}/list`, { token });
    expect(l.status).toBe(202);
    expect(l.json.Car.Status).toBe('Listed');
    const u = await env.call('PUT', `/api/cars/${car.Id}/unlist`, { token });
    expect(u.json.Car.Status).toBe('Unlisted');
    const stranger = env.tokenFor((await createUser(env.h)).actor);
    expect((await env.call('PUT', `/api/cars/${car.Id}/list`, { token: stranger })).status).toBe(404);

    const d = await env.call('DELETE', `/api/cars/${car.Id}`, { token });
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expect((await env.call('GET', `/api/cars/${car.Id}`, { token })).status).toBe(404);
    expect((await env.call('DELETE', `/api/cars/${car.Id}`, { token })).status).toBe(404);
  });

  it('unavailabilities: POST (201, Location), GET search, DELETE; bad dates are 400', async () => {
    const car = await newCar();
    const body = {
      StartDateUtc: '2026-08-01T10:00:00.000Z',
      EndDateUtc: '2026-08-02T10:00:00+00:00',
      Reason: 'maintenance',
    };
    const c = await env.call('POST', `/api/cars/${car.Id}/unavailabilities`, { token, body });
    expect(c.status).toBe(201);
    const un = c.json.Unavailability;
    expect(un).toMatchObject({
      CarId: car.Id,
      Reason: 'Maintenance',
      EndDateUtc: '2026-08-02T10:00:00.000Z',
    });
    expect(c.headers.get('location')).toBe(`${PUBLIC_URL}/api/cars/${car.Id}/unavailabilities/${un.Id}`);
    const local = await env.call('POST', `/api/cars/${car.Id}/unavailabilities`, {
      token,
      body: { ...body, StartDateUtc: '2026-08-01T10:00:00+10:00' },
    });
    expect(local.status).toBe(400);
    expect(local.json.ResponseStatus.Errors[0]).toMatchObject({
      FieldName: 'StartDateUtc',
      ErrorCode: 'InvalidFormat',
    });

    const list = await env.call('GET', `/api/cars/${car.Id}/unavailabilities`, { token });
    expect(list.json.Unavailabilities).toEqual([un]);
    expect(list.json.Metadata.Sort).toEqual({ By: 'StartDateUtc', Direction: 'Ascending' });
    const d = await env.call('DELETE', `/api/cars/${car.Id}/unavailabilities/${un.Id}`, { token });
    expect(d.status).toBe(204);
    expect(
      (await env.call('DELETE', `/api/cars/${car.Id}/unavailabilities/${un.Id}`, { token })).status,
    ).toBe(404);
    expect((await env.call('GET', `/api/cars/${randomUUID()}/unavailabilities`, { token })).status).toBe(404);
  });
});

describe('feedback', () => {
  it('GET /api/feedbacks and /{Id}, PATCH and DELETE by the author; the rating follows', async () => {
    const borrower = await createUser(env.h);
    const bt = env.tokenFor(borrower.actor);
    const fb = await leaveFeedback(env.h, owner.actor, bookingFacts(borrower.id, owner.id), {
      rating: 4,
      comment: 'Fine',
    });
    const list = await env.call('GET', `/api/feedbacks?subjecttype=UserAccount&subjectid=${borrower.id}`, {
      token: bt,
    });
    expect(list.status).toBe(200);
    expect(list.json.Feedbacks.map((f: any) => f.Id)).toEqual([fb.id]);
    const one = await env.call('GET', `/api/feedbacks/${fb.id}`, { token: bt });
    expect(one.json.Feedback).toMatchObject({ Rating: 4, Comment: 'Fine', AuthorId: owner.id });
    expect((await env.call('GET', `/api/feedbacks/${randomUUID()}`, { token: bt })).status).toBe(404);

    const before = await env.call('GET', `/api/ratings/UserAccount/${borrower.id}`, { token: bt });
    expect(before.json.Rating).toMatchObject({ Count: 1, Average: 4 });
    const p = await env.call('PATCH', `/api/feedbacks/${fb.id}`, { token, body: { Rating: '2' } });
    expect(p.status).toBe(202);
    expect(p.json.Feedback.Rating).toBe(2);
    expect(
      (await env.call('PATCH', `/api/feedbacks/${fb.id}`, { token: bt, body: { Rating: 5 } })).status,
    ).toBe(403);
    expect((await env.call('PATCH', `/api/feedbacks/${fb.id}`, { token, body: { Rating: 9 } })).status).toBe(
      400,
    );
    // The cached rating was made stale by the PATCH.
    const after = await env.call('GET', `/api/ratings/UserAccount/${borrower.id}`, { token: bt });
    expect(after.json.Rating).toMatchObject({ Count: 1, Average: 2 });

    expect((await env.call('DELETE', `/api/feedbacks/${fb.id}`, { token })).status).toBe(204);
    const gone = await env.call('GET', `/api/ratings/UserAccount/${borrower.id}`, { token: bt });
    expect(gone.json.Rating.Count).toBe(0);
  });
});
