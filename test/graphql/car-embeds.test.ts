// A car by id reads its embeds in the car's own statement (src/cars/car-embeds.ts) and primes the loaders with
// them, as views (src/db/views.ts): what it primes must equal what the loaders read on their own (values and types),
// their timestamps as the ISO text the DateTime scalar writes, rated or not, with timestamps finer than a
// millisecond, and it must be one statement. A page of cars primes them alike.
import { beforeEach, describe, expect, it } from 'vitest';
import { profileByUserId } from '../../src/accounts/account.loaders.js';
import { carById } from '../../src/cars/car.loaders.js';
import { type CarEmbeds, loadCarWithEmbeds } from '../../src/cars/car-embeds.js';
import { ratingBySubject } from '../../src/ratings/rating.loaders.js';
import { verificationsBySubject } from '../../src/verifications/verification.loaders.js';
import { bookingIn, type World, world } from '../factories/bookings.js';
import { bookingFacts, leaveFeedback } from '../factories/feedback.js';
import { asOps } from '../support/actors.js';
import { useHarness } from '../support/harness.js';
import { scoped } from '../support/scope.js';

const h = useHarness();

const all: CarEmbeds = { rating: true, verifications: true, owner: true, ownerRating: true };

/** The car and its embeds as the request's loaders hold them. */
async function loaded(ctx: Parameters<typeof carById>[0], carId: string) {
  const car = (await carById(ctx).load(carId))!;
  return {
    car,
    rating: await ratingBySubject(ctx).load({ subjectType: 'Car', subjectId: carId }),
    verifications: await verificationsBySubject(ctx).load({ subjectType: 'Car', subjectId: carId }),
    owner: await profileByUserId(ctx).load(car.ownerId),
    ownerRating: await ratingBySubject(ctx).load({ subjectType: 'UserAccount', subjectId: car.ownerId }),
  };
}

const context = () => ({ em: scoped(h.orm), loaders: new Map<string, unknown>() });

/**
 * A plain row (or rows) as its view holds it: no car share, every Date as `toISOString`, everything else as it is
 * (a JSON value's own keys included).
 */
function asView(value: unknown, inJson = false): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => asView(v, inJson));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => inJson || k !== 'carShareId')
      .map(([k, v]) => [k, asView(v, inJson || k === 'evidence')]),
  );
}

/** Statements sent while `run` runs. */
async function counted<T>(run: () => Promise<T>): Promise<{ value: T; statements: number }> {
  const before = h.sql.length;
  const value = await run();
  return { value, statements: h.sql.length - before };
}

describe('a car with its embeds in one statement', () => {
  let rated: World;
  let unrated: World;

  beforeEach(async () => {
    rated = await world(h);
    await bookingIn(h, rated, 'Approved');
    const facts = bookingFacts(rated.borrower.id, rated.owner.id, { carId: rated.carId });
    await leaveFeedback(h, rated.borrower.actor, facts, { rating: 4 });
    unrated = await world(h);
    // Microseconds, which both reads must drop alike.
    const conn = h.orm.em.fork().getConnection();
    for (const table of ['car', 'profile', 'rating', 'verification'])
      await conn.execute(
        `update ${table} set created_date_utc = created_date_utc + interval '0.000987 seconds'`,
      );
    await conn.execute(
      `update verification set evidence = '{"z": 1, "a": [2.50, "x"]}' where subject_type = 'Car'`,
    );
  });

  it.each([
    ['rated', () => rated],
    ['unrated', () => unrated],
  ])('%s: primes the loaders with what they would read themselves', async (_, w) => {
    const carId = w().carId;
    const primed = context();
    const { value: car, statements } = await counted(() => loadCarWithEmbeds(primed, carId, all));
    expect(statements).toBe(1);
    const { value: fromPrimed, statements: more } = await counted(() => loaded(primed, carId));
    expect(more).toBe(0);
    const fromLoaders = await loaded(context(), carId);
    expect(fromLoaders.car!.createdDateUtc).toBeInstanceOf(Date);
    expect(car).toStrictEqual(asView(fromLoaders.car));
    expect(fromPrimed).toStrictEqual(asView(fromLoaders));
    expect(fromPrimed.verifications.length).toBeGreaterThan(0);
  });

  it('reads only the embeds asked for, and a car that does not exist as null', async () => {
    const ctx = context();
    const { statements } = await counted(() =>
      loadCarWithEmbeds(ctx, rated.carId, {
        rating: true,
        verifications: false,
        owner: false,
        ownerRating: false,
      }),
    );
    expect(statements).toBe(1);
    const { statements: more } = await counted(() =>
      verificationsBySubject(ctx).load({ subjectType: 'Car', subjectId: rated.carId }),
    );
    expect(more).toBe(1);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect(await loadCarWithEmbeds(ctx, missing, all)).toBeNull();
    expect(await carById(ctx).load(missing)).toBeNull();
  });
});

describe('a page of cars with its embeds in one statement', () => {
  // Every embed, with each car's fields selected directly (views primed by the page's statement), or through a
  // fragment, which the page does not look into: its embeds are then loaded by the loaders from plain rows.
  const FIELDS = `id make createdDateUtc lastModifiedDateUtc lockStateChangedDateUtc hourlyRate { amount }
    homeLocation { latitude } isVerified
    rating { id count average createdDateUtc lastModifiedDateUtc }
    verifications { id kind status evidence expiresDateUtc decidedDateUtc createdDateUtc lastModifiedDateUtc }
    owner { id displayName createdDateUtc rating { id count average createdDateUtc } }`;
  const DIRECT = `{ cars(limit: 50) { total nodes { ${FIELDS} } } }`;
  const THROUGH_FRAGMENT = `{ cars(limit: 50) { total nodes { ...F } } } fragment F on Car { ${FIELDS} }`;

  it('answers as the loaders do on their own, in one statement instead of several', async () => {
    const w = await world(h);
    await bookingIn(h, w, 'Approved');
    const facts = bookingFacts(w.borrower.id, w.owner.id, { carId: w.carId });
    await leaveFeedback(h, w.borrower.actor, facts, { rating: 4 });
    await world(h);
    const conn = h.orm.em.fork().getConnection();
    await conn.execute(`update car set created_date_utc = created_date_utc + interval '0.000987 seconds'`);
    const direct = await counted(() => h.ok<{ cars: { nodes: unknown[] } }>(asOps(), DIRECT));
    const loaded = await counted(() => h.ok<{ cars: { nodes: unknown[] } }>(asOps(), THROUGH_FRAGMENT));
    expect(direct.value.cars.nodes.length).toBeGreaterThanOrEqual(2);
    expect(direct.value).toStrictEqual(loaded.value);
    expect(direct.statements).toBe(1);
    expect(loaded.statements).toBeGreaterThan(1);
  });
});
