// The answer to a booking request embeds what GET /api/bookings/{Id} embeds (the car with its rating,
// verifications and owner, the borrower's profile and rating, no feedback yet), read by the request's own
// statement: the request sends nothing after its transaction (test/bench S5).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inHours, type World, world } from '../factories/bookings.js';
import { sql } from '../factories/cars.js';
import { type RestEnv, startRest } from './support.js';

let env: RestEnv;
beforeAll(async () => {
  env = await startRest();
});
afterAll(async () => env?.close());

let w: World;
let borrower: string;
beforeEach(async () => {
  await env.h.reset();
  env.h.clock.set('2026-07-01T10:00:00.000Z');
});

async function setUp(autoApprove: boolean, rated: boolean) {
  w = await world(env.h, { autoApprove });
  borrower = env.tokenFor(w.borrower.actor);
  if (rated)
    await sql(
      env.h,
      `insert into rating (id, subject_type, subject_id, count, average, created_date_utc, last_modified_date_utc)
       values (gen_random_uuid(), 'Car', ?, 2, 4.5, now(), now()),
              (gen_random_uuid(), 'UserAccount', ?, 3, 4.0, now(), now()),
              (gen_random_uuid(), 'UserAccount', ?, 1, 3.0, now(), now())`,
      [w.carId, w.owner.id, w.borrower.id],
    );
}

async function requestAndRead() {
  env.sql.length = 0;
  const r = await env.call('POST', `/api/cars/${w.carId}/bookings`, {
    token: borrower,
    body: { StartDateUtc: inHours(env.h, 24), EndDateUtc: inHours(env.h, 26), Message: 'Hello' },
  });
  expect(r.status).toBe(201);
  const statements = [...env.sql];
  const read = await env.call('GET', `/api/bookings/${r.json.Booking.Id}`, { token: borrower });
  expect(read.status).toBe(200);
  return { answer: r.json, read: read.json, statements };
}

describe('the answer to POST /api/cars/{Id}/bookings', () => {
  for (const autoApprove of [true, false])
    for (const rated of [true, false])
      it(`equals the booking's GET, read in the request's statement (${autoApprove ? 'auto-approved' : 'Pending'}, ${rated ? 'rated' : 'unrated'})`, async () => {
        await setUp(autoApprove, rated);
        const { answer, read, statements } = await requestAndRead();
        expect(answer.Booking.State).toBe(autoApprove ? 'Approved' : 'Pending');
        expect(answer.Booking.Car.Verifications).toHaveLength(2);
        expect(answer.Booking.Car.Rating.Count).toBe(rated ? 2 : 0);
        expect(answer.Booking.Car.Owner.Rating.Count).toBe(rated ? 3 : 0);
        expect(answer.Booking.Borrower.Rating.Count).toBe(rated ? 1 : 0);
        expect(answer.Booking.Feedbacks).toEqual([]);
        expect(answer).toEqual(read);
        // No profile, rating or verification read of its own: the check-and-insert statement brought them.
        expect(
          statements.filter((s) => /from "?(profile|rating|verification)"? /.test(s) && !/insert/i.test(s)),
        ).toEqual([]);
      });
});
