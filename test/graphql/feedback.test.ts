// Feedback on real PostgreSQL: createFeedback through the command bookings will call (booking facts in),
// reads, updates and deletes over GraphQL, with their rules, permissions, events and Rating recomputation.
import { beforeEach, describe, expect, it } from 'vitest';
import { createFeedback } from '../../src/feedback/feedback.commands.js';
import { createUser, outbox, type TestUser } from '../factories/accounts.js';
import { bookingFacts, leaveFeedback, ratingRow } from '../factories/feedback.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';
import { scoped } from '../support/scope.js';
import { waitForLockWait } from '../support/wait.js';

const h = useHarness();

type F = Record<string, any>;
const NOW = '2026-07-01T10:00:00.000Z';
const FIELDS =
  'id carBookingId authorId subjectType subjectId rating comment createdDateUtc lastModifiedDateUtc';
const GET = `query($id: UUID!) { feedback(id: $id) { ${FIELDS} } }`;
const SEARCH = `query($subjectType: SubjectType, $subjectId: UUID, $sort: String, $limit: Int, $offset: Int,
  $distinct: String) {
  feedbacks(subjectType: $subjectType, subjectId: $subjectId, sort: $sort, limit: $limit, offset: $offset,
    distinct: $distinct) { total limit offset sort { by direction } distinct nodes { id rating authorId } } }`;
const UPDATE = `mutation($id: UUID!, $input: UpdateFeedbackInput!) { updateFeedback(id: $id, input: $input) {
  ${FIELDS} } }`;
const DELETE = 'mutation($id: UUID!) { deleteFeedback(id: $id) { id } }';
const RATING = `query($t: SubjectType!, $id: UUID!) { rating(subjectType: $t, subjectId: $id) { count average } }`;

async function feedbackEvents() {
  return (await outbox(h)).filter((e) => e.name.startsWith('feedback_'));
}

async function feedbackCount(): Promise<number> {
  const [r] = await h.orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>('select count(*)::int as n from feedback');
  return r!.n;
}

let borrower: TestUser;
let owner: TestUser;
beforeEach(async () => {
  borrower = await createUser(h);
  owner = await createUser(h);
});

describe('createFeedback (called by bookings with the booking’s facts)', () => {
  it('the borrower rates the car: row, Rating and feedback_update to author and owner', async () => {
    const b = bookingFacts(borrower.id, owner.id);
    const f = await leaveFeedback(h, borrower.actor, b, { rating: 4, comment: '  Clean and on time ' });
    const read = (await h.ok<{ feedback: F }>(asOps(), GET, { id: f.id })).feedback;
    expect(read).toEqual({
      id: f.id,
      carBookingId: b.id,
      authorId: borrower.id,
      subjectType: 'Car',
      subjectId: b.carId,
      rating: 4,
      comment: 'Clean and on time',
      createdDateUtc: NOW,
      lastModifiedDateUtc: NOW,
    });
    expect(f.subjectUserId).toBe(owner.id);
    expect(await feedbackEvents()).toEqual([
      {
        name: 'feedback_update',
        payload: {
          Name: 'feedback_update',
          OccurredDateUtc: NOW,
          Id: f.id,
          CarBookingId: b.id,
          SubjectType: 'Car',
          SubjectId: b.carId,
          Rating: 4,
        },
        audience_user_ids: [borrower.id, owner.id],
      },
    ]);
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 1, average: '4.0' });
  });

  it('the owner rates the borrower, also once the booking is Completed', async () => {
    const b = bookingFacts(borrower.id, owner.id, { state: 'Completed' });
    const f = await leaveFeedback(h, owner.actor, b, { rating: 5 });
    expect(f).toMatchObject({
      subjectType: 'UserAccount',
      subjectId: borrower.id,
      authorId: owner.id,
      comment: null,
    });
    const [ev] = await feedbackEvents();
    expect(ev!.payload).toEqual({
      Name: 'feedback_update',
      OccurredDateUtc: NOW,
      Id: f.id,
      CarBookingId: b.id,
      SubjectType: 'UserAccount',
      SubjectId: borrower.id,
      Rating: 5,
    });
    expect(ev!.audience_user_ids).toEqual([owner.id, borrower.id]);
    expect(await ratingRow(h, 'UserAccount', borrower.id)).toEqual({ count: 1, average: '5.0' });
  });

  it.each(['Pending', 'Approved', 'InUse', 'Declined', 'Expired', 'Cancelled'])(
    'refuses feedback while the booking is %s: 409 InvalidStateTransition with State',
    async (state) => {
      const b = bookingFacts(borrower.id, owner.id, { state });
      for (const party of [borrower, owner])
        await expect(leaveFeedback(h, party.actor, b, { rating: 5 })).rejects.toMatchObject({
          code: 'InvalidStateTransition',
          details: { meta: { State: state } },
        });
      expect(await feedbackCount()).toBe(0);
      expect(await feedbackEvents()).toHaveLength(0);
    },
  );

  it('takes one feedback per party per booking: a second is 409 AlreadyExists', async () => {
    const b = bookingFacts(borrower.id, owner.id);
    await leaveFeedback(h, borrower.actor, b, { rating: 4 });
    await expect(leaveFeedback(h, borrower.actor, b, { rating: 1 })).rejects.toMatchObject({
      code: 'AlreadyExists',
    });
    // The other party still has theirs to leave, and another booking is another chance.
    await leaveFeedback(h, owner.actor, b, { rating: 3 });
    await leaveFeedback(
      h,
      borrower.actor,
      { ...b, id: bookingFacts(borrower.id, owner.id).id },
      { rating: 2 },
    );
    expect(await feedbackCount()).toBe(3);
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 2, average: '3.0' });
    expect(await feedbackEvents()).toHaveLength(3);
  });

  it('holds under a race: the unique constraint turns the loser into AlreadyExists, nothing recorded', async () => {
    const b = bookingFacts(borrower.id, owner.id);
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    let created!: () => void;
    const firstCreated = new Promise<void>((r) => {
      created = r;
    });
    const first = scoped(h.orm).transactional(async (em) => {
      const f = await createFeedback({ em, actor: borrower.actor, clock: h.clock }, b, { rating: 5 });
      created();
      await hold; // keep the row uncommitted while the second request passes the existence check
      return f;
    });
    await firstCreated;
    const second = leaveFeedback(h, borrower.actor, b, { rating: 1 });
    const outcome = second.then(
      () => 'created',
      (e: unknown) => e,
    );
    // The second request has seen no feedback and is now waiting on the first one's row.
    await waitForLockWait(h.orm);
    release();
    await first;
    expect(await outcome).toMatchObject({ code: 'AlreadyExists' });
    expect(await feedbackCount()).toBe(1);
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 1, average: '5.0' });
    expect((await feedbackEvents()).map((e) => e.payload.Rating)).toEqual([5]);
  });

  it('is for the parties only: others get NotFound; ops and apps Forbidden; anonymous Unauthorized', async () => {
    const stranger = await createUser(h);
    const b = bookingFacts(borrower.id, owner.id);
    const refusals: [TestUser['actor'], string][] = [
      [stranger.actor, 'NotFound'],
      [asOps(), 'Forbidden'],
      [asClient(['feedback:write', 'feedback:read']), 'Forbidden'],
      [anonymous, 'Unauthorized'],
      [asUser(borrower.id, scopesWithout('feedback:write')), 'Forbidden'],
    ];
    for (const [actor, code] of refusals)
      await expect(leaveFeedback(h, actor, b, { rating: 5 })).rejects.toMatchObject({ code });
    expect(await feedbackCount()).toBe(0);
    expect(await feedbackEvents()).toHaveLength(0);
  });

  it.each([
    [{}, 'rating', 'NotEmpty'],
    [{ rating: null }, 'rating', 'NotEmpty'],
    [{ rating: 0 }, 'rating', 'OutOfRange'],
    [{ rating: 6 }, 'rating', 'OutOfRange'],
    [{ rating: 4.5 }, 'rating', 'InvalidFormat'],
    [{ rating: 3, comment: 'x'.repeat(1001) }, 'comment', 'TooLong'],
  ])('refuses %j naming %s (%s); nothing recorded', async (input, field, code) => {
    const b = bookingFacts(borrower.id, owner.id);
    await expect(leaveFeedback(h, borrower.actor, b, input)).rejects.toMatchObject({
      code,
      details: { field },
    });
    expect(await feedbackCount()).toBe(0);
    expect(await ratingRow(h, 'Car', b.carId)).toBeUndefined();
    expect(await feedbackEvents()).toHaveLength(0);
  });

  it('keeps a comment of 1000 characters; a blank one is no comment', async () => {
    const b = bookingFacts(borrower.id, owner.id);
    expect(
      (await leaveFeedback(h, borrower.actor, b, { rating: 3, comment: 'c'.repeat(1000) })).comment,
    ).toHaveLength(1000);
    expect((await leaveFeedback(h, owner.actor, b, { rating: 3, comment: '   ' })).comment).toBeNull();
  });
});

describe('reading feedback', () => {
  /** Three borrowers rate one car a second apart; the owner rates the first borrower. */
  async function seed() {
    const carId = bookingFacts(borrower.id, owner.id).carId;
    const others = [borrower, await createUser(h), await createUser(h)];
    const made: F[] = [];
    for (const [i, who] of others.entries()) {
      const b = bookingFacts(who.id, owner.id, { carId });
      made.push(await leaveFeedback(h, who.actor, b, { rating: [5, 3, 4][i]! }));
      h.clock.advance(1000);
      if (i === 0) made.push(await leaveFeedback(h, owner.actor, b, { rating: 2 }));
    }
    return { carId, made };
  }

  it('searches by subject, newest first by default, echoing what it applied', async () => {
    const { carId, made } = await seed();
    const d = (
      await h.ok<{ feedbacks: F }>(asUser(owner.id), SEARCH, { subjectType: 'Car', subjectId: carId })
    ).feedbacks;
    expect(d).toMatchObject({
      total: 3,
      limit: 100,
      offset: 0,
      sort: { by: 'createdDateUtc', direction: 'Descending' },
      distinct: null,
    });
    expect(d.nodes.map((n: F) => n.rating)).toEqual([4, 3, 5]);
    const aboutUser = (
      await h.ok<{ feedbacks: F }>(asOps(), SEARCH, { subjectType: 'UserAccount', subjectId: borrower.id })
    ).feedbacks;
    expect(aboutUser.nodes).toEqual([{ id: made[1]!.id, rating: 2, authorId: owner.id }]);
    expect((await h.ok<{ feedbacks: F }>(asOps(), SEARCH)).feedbacks.total).toBe(4);
    expect(
      (await h.ok<{ feedbacks: F }>(asOps(), SEARCH, { subjectType: 'UserAccount' })).feedbacks.total,
    ).toBe(1);
  });

  it('sorts by any field in any case, pages, and makes results distinct', async () => {
    const { carId } = await seed();
    const page = (
      await h.ok<{ feedbacks: F }>(asOps(), SEARCH, { subjectId: carId, sort: 'RATING', limit: 2, offset: 1 })
    ).feedbacks;
    expect(page).toMatchObject({
      total: 3,
      limit: 2,
      offset: 1,
      sort: { by: 'rating', direction: 'Ascending' },
    });
    expect(page.nodes.map((n: F) => n.rating)).toEqual([4, 5]);
    const past = (await h.ok<{ feedbacks: F }>(asOps(), SEARCH, { offset: 10 })).feedbacks;
    expect(past).toMatchObject({ total: 4, nodes: [] });
    const distinct = (
      await h.ok<{ feedbacks: F }>(asOps(), SEARCH, { distinct: 'subject_type', sort: '-rating' })
    ).feedbacks;
    expect(distinct).toMatchObject({ total: 2, distinct: 'subjectType' });
    expect(distinct.nodes.map((n: F) => n.rating)).toEqual([5, 2]);
  });

  it.each([
    ['sort', { sort: 'nope' }, 'InvalidValue'],
    ['limit', { limit: 0 }, 'OutOfRange'],
    ['limit', { limit: 1001 }, 'OutOfRange'],
    ['offset', { offset: -1 }, 'OutOfRange'],
    ['distinct', { distinct: 'nope' }, 'InvalidValue'],
  ])('refuses a bad %s with %s naming it', async (field, vars, code) => {
    expect(errorOf(await h.run(asOps(), SEARCH, vars))).toMatchObject({ code, field });
  });

  it('reads one by id; an unknown id is NotFound, a malformed one InvalidFormat', async () => {
    const { made } = await seed();
    const one = (await h.ok<{ feedback: F }>(asClient(['feedback:read']), GET, { id: made[0]!.id })).feedback;
    expect(one).toMatchObject({ id: made[0]!.id, rating: 5, authorId: borrower.id });
    expect(errorOf(await h.run(asOps(), GET, { id: '00000000-0000-4000-8000-000000000000' })).code).toBe(
      'NotFound',
    );
    expect(errorOf(await h.run(asOps(), GET, { id: 'nope' }))).toMatchObject({
      code: 'InvalidFormat',
      field: 'id',
    });
  });

  it('is open to readers with feedback:read (any user, apps, ops) and to nobody else', async () => {
    const { made } = await seed();
    const stranger = await createUser(h);
    for (const actor of [stranger.actor, asClient(['feedback:read']), asOps()]) {
      expect((await h.run(actor, SEARCH)).errors).toBeUndefined();
      expect((await h.run(actor, GET, { id: made[0]!.id })).errors).toBeUndefined();
    }
    for (const q of [SEARCH, GET]) {
      const vars = { id: made[0]!.id };
      expect(errorOf(await h.run(anonymous, q, vars)).code).toBe('Unauthorized');
      expect(errorOf(await h.run(asUser(stranger.id, scopesWithout('feedback:read')), q, vars)).code).toBe(
        'Forbidden',
      );
      expect(errorOf(await h.run(asClient(['feedback:write', 'users:read']), q, vars)).code).toBe(
        'Forbidden',
      );
    }
  });
});

describe('updateFeedback', () => {
  let b: ReturnType<typeof bookingFacts>;
  let id: string;
  beforeEach(async () => {
    b = bookingFacts(borrower.id, owner.id);
    id = (await leaveFeedback(h, borrower.actor, b, { rating: 4, comment: 'Fine' })).id;
  });

  it('the author changes rating and comment: Rating recomputed, feedback_update recorded', async () => {
    const other = await createUser(h);
    await leaveFeedback(h, other.actor, bookingFacts(other.id, owner.id, { carId: b.carId }), { rating: 5 });
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 2, average: '4.5' });
    h.clock.advance(60_000);
    const f = (
      await h.ok<{ updateFeedback: F }>(borrower.actor, UPDATE, {
        id,
        input: { rating: 2, comment: 'Dirty' },
      })
    ).updateFeedback;
    expect(f).toMatchObject({
      id,
      rating: 2,
      comment: 'Dirty',
      createdDateUtc: NOW,
      lastModifiedDateUtc: '2026-07-01T10:01:00.000Z',
    });
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 2, average: '3.5' });
    expect((await feedbackEvents()).at(-1)).toEqual({
      name: 'feedback_update',
      payload: {
        Name: 'feedback_update',
        OccurredDateUtc: '2026-07-01T10:01:00.000Z',
        Id: id,
        CarBookingId: b.id,
        SubjectType: 'Car',
        SubjectId: b.carId,
        Rating: 2,
      },
      audience_user_ids: [borrower.id, owner.id],
    });
  });

  it('changes only what is given; null or blank clears the comment; no change records nothing', async () => {
    const before = (await feedbackEvents()).length;
    const same = (
      await h.ok<{ updateFeedback: F }>(borrower.actor, UPDATE, { id, input: { rating: 4, comment: 'Fine' } })
    ).updateFeedback;
    expect(same).toMatchObject({ rating: 4, comment: 'Fine', lastModifiedDateUtc: NOW });
    expect(await feedbackEvents()).toHaveLength(before);
    const c = (await h.ok<{ updateFeedback: F }>(borrower.actor, UPDATE, { id, input: { comment: 'Great' } }))
      .updateFeedback;
    expect(c).toMatchObject({ rating: 4, comment: 'Great' });
    expect((await feedbackEvents()).at(-1)!.payload.Rating).toBe(4);
    const cleared = (
      await h.ok<{ updateFeedback: F }>(borrower.actor, UPDATE, { id, input: { comment: null } })
    ).updateFeedback;
    expect(cleared.comment).toBeNull();
    const r = (await h.ok<{ updateFeedback: F }>(borrower.actor, UPDATE, { id, input: { rating: 1 } }))
      .updateFeedback;
    expect(r).toMatchObject({ rating: 1, comment: null });
    expect(await feedbackEvents()).toHaveLength(before + 3);
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 1, average: '1.0' });
  });

  it.each([
    [{ rating: 0 }, 'rating', 'OutOfRange'],
    [{ rating: 6 }, 'rating', 'OutOfRange'],
    [{ rating: null }, 'rating', 'NotEmpty'],
    [{ comment: 'x'.repeat(1001) }, 'comment', 'TooLong'],
  ])('refuses %j naming %s (%s); nothing changes or is recorded', async (input, field, code) => {
    const before = (await feedbackEvents()).length;
    expect(errorOf(await h.run(borrower.actor, UPDATE, { id, input }))).toMatchObject({ code, field });
    expect((await h.ok<{ feedback: F }>(asOps(), GET, { id })).feedback).toMatchObject({
      rating: 4,
      comment: 'Fine',
    });
    expect(await feedbackEvents()).toHaveLength(before);
  });

  it('a non-whole rating is refused by the schema, naming the input field', async () => {
    const r = await h.run(borrower.actor, UPDATE, { id, input: { rating: 2.5 } });
    expect(errorOf(r)).toMatchObject({ code: 'InvalidValue', field: 'input.rating' });
  });

  it('is the author’s alone: readers get Forbidden, callers who cannot read it NotFound', async () => {
    const stranger = await createUser(h);
    const vars = { id, input: { rating: 1 } };
    const refusals: [TestUser['actor'], string][] = [
      [owner.actor, 'Forbidden'], // the subject's owner reads it, but did not write it
      [stranger.actor, 'Forbidden'],
      [asUser(stranger.id, ['feedback:write']), 'NotFound'],
      [asOps(), 'Forbidden'],
      [asClient(['feedback:write', 'feedback:read']), 'Forbidden'],
      [asUser(borrower.id, scopesWithout('feedback:write')), 'Forbidden'],
      [anonymous, 'Unauthorized'],
    ];
    const before = (await feedbackEvents()).length;
    for (const [actor, code] of refusals) expect(errorOf(await h.run(actor, UPDATE, vars)).code).toBe(code);
    const unknown = { ...vars, id: '00000000-0000-4000-8000-000000000000' };
    expect(errorOf(await h.run(borrower.actor, UPDATE, unknown)).code).toBe('NotFound');
    expect((await h.ok<{ feedback: F }>(asOps(), GET, { id })).feedback.rating).toBe(4);
    expect(await feedbackEvents()).toHaveLength(before);
  });

  it('records nothing and changes nothing when the Rating recomputation fails in its transaction', async () => {
    const conn = h.orm.em.fork().getConnection();
    await conn.execute(`create or replace function refuse_rating() returns trigger language plpgsql as $$
      begin raise exception 'refused for the test'; end $$`);
    await conn.execute(
      'create trigger refuse_rating before update on rating for each row execute function refuse_rating()',
    );
    const before = (await feedbackEvents()).length;
    try {
      const r = await h.run(borrower.actor, UPDATE, { id, input: { rating: 1 } });
      expect(errorOf(r).code).toBe('InternalServerError');
      const del = await h.run(borrower.actor, DELETE, { id });
      expect(errorOf(del).code).toBe('InternalServerError');
    } finally {
      await conn.execute('drop trigger if exists refuse_rating on rating');
      await conn.execute('drop function if exists refuse_rating()');
    }
    expect((await h.ok<{ feedback: F }>(asOps(), GET, { id })).feedback.rating).toBe(4);
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 1, average: '4.0' });
    expect(await feedbackEvents()).toHaveLength(before);
  });
});

describe('deleteFeedback', () => {
  it('the author deletes: Deleted, feedback_delete recorded, Rating recomputed (null at zero)', async () => {
    const b = bookingFacts(borrower.id, owner.id);
    const f = await leaveFeedback(h, borrower.actor, b, { rating: 3 });
    h.clock.advance(5000);
    expect((await h.ok<{ deleteFeedback: F }>(borrower.actor, DELETE, { id: f.id })).deleteFeedback).toEqual({
      id: f.id,
    });
    expect(errorOf(await h.run(asOps(), GET, { id: f.id })).code).toBe('NotFound');
    expect((await feedbackEvents()).at(-1)).toEqual({
      name: 'feedback_delete',
      payload: {
        Name: 'feedback_delete',
        OccurredDateUtc: '2026-07-01T10:00:05.000Z',
        Id: f.id,
        CarBookingId: b.id,
        SubjectType: 'Car',
        SubjectId: b.carId,
      },
      audience_user_ids: [borrower.id, owner.id],
    });
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 0, average: null });
    const rating = await h.ok<{ rating: F }>(asOps(), RATING, { t: 'Car', id: b.carId });
    expect(rating.rating).toEqual({ count: 0, average: null });
    expect(errorOf(await h.run(borrower.actor, DELETE, { id: f.id })).code).toBe('NotFound');
  });

  it('ops may delete anyone’s feedback (moderation); the audience is still author and subject', async () => {
    const b = bookingFacts(borrower.id, owner.id);
    const f = await leaveFeedback(h, owner.actor, b, { rating: 1 });
    await h.ok(asOps(), DELETE, { id: f.id });
    const ev = (await feedbackEvents()).at(-1)!;
    expect(ev.name).toBe('feedback_delete');
    expect(ev.payload).toMatchObject({ Id: f.id, SubjectType: 'UserAccount', SubjectId: borrower.id });
    expect(ev.payload).not.toHaveProperty('Rating');
    expect(ev.audience_user_ids).toEqual([owner.id, borrower.id]);
    expect(await ratingRow(h, 'UserAccount', borrower.id)).toEqual({ count: 0, average: null });
  });

  it('refuses everyone else: readers Forbidden, non-readers NotFound, apps Forbidden, anonymous Unauthorized', async () => {
    const b = bookingFacts(borrower.id, owner.id);
    const f = await leaveFeedback(h, borrower.actor, b, { rating: 3 });
    const stranger = await createUser(h);
    const refusals: [TestUser['actor'], string][] = [
      [owner.actor, 'Forbidden'],
      [stranger.actor, 'Forbidden'],
      [asUser(stranger.id, ['feedback:write']), 'NotFound'],
      [asClient(['feedback:write', 'feedback:read']), 'Forbidden'],
      [asUser(borrower.id, scopesWithout('feedback:write')), 'Forbidden'],
      [anonymous, 'Unauthorized'],
    ];
    for (const [actor, code] of refusals)
      expect(errorOf(await h.run(actor, DELETE, { id: f.id })).code).toBe(code);
    expect((await h.ok<{ feedback: F }>(asOps(), GET, { id: f.id })).feedback.id).toBe(f.id);
    expect(await feedbackEvents()).toHaveLength(1);
    expect(await ratingRow(h, 'Car', b.carId)).toEqual({ count: 1, average: '3.0' });
  });
});
