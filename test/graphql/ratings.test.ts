// The Rating aggregate on real PostgreSQL: read over GraphQL (alone and embedded in accounts and profiles),
// kept right by every feedback change, and by concurrent ones.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFeedback } from '../../src/feedback/feedback.commands.js';
import { ratingId } from '../../src/ratings/rating.loaders.js';
import { createUser, type TestUser } from '../factories/accounts.js';
import { bookingFacts, leaveFeedback } from '../factories/feedback.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';
import { scoped } from '../support/scope.js';
import { waitForLockWait } from '../support/wait.js';

const h = useHarness();

type R = Record<string, any>;
const RATING = `query($t: SubjectType!, $id: UUID!) {
  rating(subjectType: $t, subjectId: $id) { id subjectType subjectId count average createdDateUtc lastModifiedDateUtc } }`;
const UPDATE = 'mutation($id: UUID!, $r: Int) { updateFeedback(id: $id, input: { rating: $r }) { id } }';
const DELETE = 'mutation($id: UUID!) { deleteFeedback(id: $id) { id } }';

async function rating(subjectType: 'Car' | 'UserAccount', subjectId: string): Promise<R> {
  return (await h.ok<{ rating: R }>(asOps(), RATING, { t: subjectType, id: subjectId })).rating;
}

/** n borrowers each rate one car once (one booking each); returns the feedback ids. */
async function rateCar(owner: TestUser, carId: string, ratings: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const r of ratings) {
    const b = await createUser(h);
    ids.push((await leaveFeedback(h, b.actor, bookingFacts(b.id, owner.id, { carId }), { rating: r })).id);
  }
  return ids;
}

describe('rating query', () => {
  it('reads a subject nobody has rated as count 0, average null, with an id that stays once rated', async () => {
    const owner = await createUser(h);
    const carId = randomUUID();
    const before = await rating('Car', carId);
    expect(before).toEqual({
      id: ratingId('Car', carId),
      subjectType: 'Car',
      subjectId: carId,
      count: 0,
      average: null,
      createdDateUtc: null,
      lastModifiedDateUtc: null,
    });
    h.clock.advance(1000);
    await rateCar(owner, carId, [4]);
    expect(await rating('Car', carId)).toEqual({
      ...before,
      count: 1,
      average: 4,
      createdDateUtc: '2026-07-01T10:00:01.000Z',
      lastModifiedDateUtc: '2026-07-01T10:00:01.000Z',
    });
  });

  it('needs feedback:read: anonymous Unauthorized, a token without it Forbidden; apps and ops may read', async () => {
    const u = await createUser(h);
    const vars = { t: 'UserAccount', id: u.id };
    expect(errorOf(await h.run(anonymous, RATING, vars)).code).toBe('Unauthorized');
    expect(errorOf(await h.run(asUser(u.id, scopesWithout('feedback:read')), RATING, vars)).code).toBe(
      'Forbidden',
    );
    expect(errorOf(await h.run(asClient(['users:read']), RATING, vars)).code).toBe('Forbidden');
    for (const actor of [u.actor, asClient(['feedback:read']), asOps()])
      expect((await h.run(actor, RATING, vars)).errors).toBeUndefined();
  });

  it('refuses a subject type outside the list and a malformed id', async () => {
    expect(errorOf(await h.run(asOps(), RATING, { t: 'Booking', id: randomUUID() })).code).toBe(
      'InvalidValue',
    );
    expect(errorOf(await h.run(asOps(), RATING, { t: 'Car', id: 'nope' }))).toMatchObject({
      code: 'InvalidFormat',
      field: 'id',
    });
  });
});

describe('recomputation', () => {
  it('averages to one decimal as feedback is created, updated and deleted; null again at zero', async () => {
    const owner = await createUser(h);
    const carId = randomUUID();
    const [a, b, c] = await rateCar(owner, carId, [5, 4, 4]);
    expect(await rating('Car', carId)).toMatchObject({ count: 3, average: 4.3 });
    const authorOf = async (id: string) => {
      const rows = await h.orm.em
        .fork()
        .getConnection()
        .execute<{ author_id: string }[]>('select author_id from feedback where id = ?', [id]);
      return asUser(rows[0]!.author_id);
    };
    await h.ok(await authorOf(c!), UPDATE, { id: c, r: 5 });
    expect(await rating('Car', carId)).toMatchObject({ count: 3, average: 4.7 });
    await h.ok(await authorOf(a!), DELETE, { id: a });
    expect(await rating('Car', carId)).toMatchObject({ count: 2, average: 4.5 });
    await h.ok(asOps(), DELETE, { id: b });
    await h.ok(await authorOf(c!), UPDATE, { id: c, r: 1 });
    expect(await rating('Car', carId)).toMatchObject({ count: 1, average: 1 });
    await h.ok(asOps(), DELETE, { id: c });
    expect(await rating('Car', carId)).toMatchObject({
      id: ratingId('Car', carId),
      count: 0,
      average: null,
    });
  });

  it('counts only feedback about its own subject', async () => {
    const owner = await createUser(h);
    const car1 = randomUUID();
    const car2 = randomUUID();
    await rateCar(owner, car1, [2]);
    await rateCar(owner, car2, [5, 5]);
    expect(await rating('Car', car1)).toMatchObject({ count: 1, average: 2 });
    expect(await rating('Car', car2)).toMatchObject({ count: 2, average: 5 });
  });

  it('is embedded in the rated user’s account and profile', async () => {
    const owner = await createUser(h);
    const borrower = await createUser(h);
    await leaveFeedback(h, owner.actor, bookingFacts(borrower.id, owner.id), { rating: 3 });
    await leaveFeedback(h, owner.actor, bookingFacts(borrower.id, owner.id), { rating: 4 });
    const d = await h.ok<{ me: R; profile: R }>(
      borrower.actor,
      'query($p: UUID!) { me { rating { count average } } profile(id: $p) { rating { count average } } }',
      { p: borrower.profileId },
    );
    expect(d.me.rating).toEqual({ count: 2, average: 3.5 });
    expect(d.profile.rating).toEqual({ count: 2, average: 3.5 });
    // The owner wrote them; the owner's own rating is untouched.
    expect(await rating('UserAccount', owner.id)).toMatchObject({ count: 0, average: null });
  });

  it('misses nothing when feedback about one subject commits concurrently', async () => {
    const owner = await createUser(h);
    const carId = randomUUID();
    // A committed rating row already exists, so the two writers meet on it (not on its creation).
    await rateCar(owner, carId, [4]);
    const [b1, b2] = [await createUser(h), await createUser(h)];
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    let recomputed!: () => void;
    const firstRecomputed = new Promise<void>((r) => {
      recomputed = r;
    });
    // The first transaction has written its row and recomputed, but not committed, when the second starts.
    const first = scoped(h.orm).transactional(async (em) => {
      await createFeedback(
        { em, actor: b1.actor, clock: h.clock },
        bookingFacts(b1.id, owner.id, { carId }),
        {
          rating: 5,
        },
      );
      recomputed();
      await hold;
    });
    await firstRecomputed;
    const second = leaveFeedback(h, b2.actor, bookingFacts(b2.id, owner.id, { carId }), { rating: 2 });
    await waitForLockWait(h.orm);
    release();
    await Promise.all([first, second]);
    expect(await rating('Car', carId)).toMatchObject({ count: 3, average: 3.7 });
  });
});
