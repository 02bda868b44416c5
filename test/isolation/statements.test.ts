// CONTRACT §25, shown by the project's own tests: every statement a request or a background step runs names
// `car_share_id = $n` for each car share table it touches — row-level security keeps a statement inside its scope,
// but only a condition in the statement lets a distributed PostgreSQL route it to one shard — and row claims
// (`for update skip locked`) stay within one car share. A representative suite of requests runs through the
// in-process GraphQL harness and every statement it sends is recorded (the harness's statement hook, which leaves
// out the transactions' own begin/set local/commit) and checked.
import { describe, expect, it } from 'vitest';
import { createFirstOperator } from '../../src/accounts/user-account.cli.js';
import { UserAccount } from '../../src/accounts/user-account.entity.js';
import { defaultBookingPolicy } from '../../src/bookings/booking.policy.js';
import { sweepBookingTimers } from '../../src/bookings/booking.timers.js';
import { Car } from '../../src/cars/car.entity.js';
import { createCarShare } from '../../src/carshares/car-share.commands.js';
import { ClientApplication } from '../../src/clientapps/client-application.entity.js';
import { carShareOf, deploymentEm } from '../../src/db/scope.js';
import { newId } from '../../src/shared/ids.js';
import { expireVerifications } from '../../src/verifications/verification.commands.js';
import { createUser, type TestUser } from '../factories/accounts.js';
import {
  APPROVE,
  type B,
  BOOKING_FIELDS,
  BOOKINGS,
  bookableCar,
  CANCEL,
  CAR_BOOKINGS,
  COMPLETE,
  DECLINE,
  EXTEND,
  inHours,
  REQUEST,
  RETURN,
  requestBooking,
  USE,
  verifiedBorrower,
  type World,
} from '../factories/bookings.js';
import {
  CARS,
  CREATE_UNAVAILABILITY,
  createCar,
  DELETE_CAR,
  DELETE_UNAVAILABILITY,
  LIST_CAR,
  sql,
  UNAVAILABILITIES,
  UNLIST_CAR,
  UPDATE_CAR,
} from '../factories/cars.js';
import { verificationId } from '../factories/verifications.js';
import { asClient, asOps } from '../support/actors.js';
import { type Harness, useHarness } from '../support/harness.js';
import { defaultCarShareId, scoped, scopedSql } from '../support/scope.js';
import {
  carShareTableNames,
  missingConditions as missingIn,
  tableRefs as refsIn,
} from '../support/statements.js';

const h = useHarness({ resetEach: false });

/** A statement and what ran it: a request (its operation) or a background step. */
interface Recorded {
  by: string;
  sql: string;
}
const recorded: Recorded[] = [];

/** The statements `work` runs, recorded as `by`'s (whatever ran between two recordings is not: test fixtures). */
async function recording<T>(by: string, work: () => Promise<T>): Promise<T> {
  h.sql.length = 0;
  try {
    return await work();
  } finally {
    for (const sql of h.sql.splice(0)) recorded.push({ by, sql });
  }
}

/** The operation a GraphQL document names first (`createCar`), for messages. */
const operationOf = (doc: string): string => /\{\s*(\w+)/.exec(doc)?.[1] ?? doc.slice(0, 40);

/** The harness, with each request's statements recorded; factories take it as the harness. */
const r: Harness = new Proxy(h, {
  get(target, key, receiver) {
    if (key === 'run' || key === 'ok') {
      const f = Reflect.get(target, key, receiver) as Harness['run'];
      return (actor: Parameters<Harness['run']>[0], doc: string, vars?: Record<string, unknown>) =>
        recording(operationOf(doc), () => f(actor, doc, vars));
    }
    return Reflect.get(target, key, receiver);
  },
});

/** Every table that holds car share data, read from the catalog by the first test. */
let carShareTables: Set<string>;
const missingConditions = (sql: string) => missingIn(sql, carShareTables);
const tableRefs = (sql: string) => refsIn(sql, carShareTables);

/**
 * The statements that may touch a car share table without naming one car share, each with its reason. Nothing a
 * request runs is among them.
 */
const EXCEPTIONS: readonly { by: RegExp; sql: RegExp; reason: string }[] = [
  {
    by: /^background: /,
    // `select distinct car_share_id from car_booking where <due>`: the car share ids, nothing else.
    sql: /^\s*select\s+(?:distinct\s+)?"?car_share_id"?\s+from\s/i,
    reason:
      'finding which car shares have due work: a query across car shares as the DATABASE_URL user that reads ' +
      'only car_share_ids (CONTRACT §24 rule 5); a distributed PostgreSQL runs it on every shard, as it must',
  },
];

/** The statements of `by` (a prefix) that lack a condition, with what they lack. */
function violations(by?: string) {
  return recorded
    .filter((s) => by === undefined || s.by.startsWith(by))
    .filter((s) => !EXCEPTIONS.some((e) => e.by.test(s.by) && e.sql.test(s.sql)))
    .map((s) => ({ ...s, missing: missingConditions(s.sql) }))
    .filter((s) => s.missing.length > 0);
}

// --- The suite -------------------------------------------------------------------------------------------------

const USER_FIELDS = `id username roles status isVerifiedBorrower lastSignInDateUtc isCarOwner
  profile { id firstName displayName phoneNumber rating { id count average } }
  verifications { id kind status } rating { id count average }`;
const CAR_EMBEDS = `id make status isVerified lockState rating { id count average }
  verifications { id kind status } owner { id displayName rating { id count average } }`;
const ops = asOps();

let owner: TestUser;
let borrower: TestUser;
let w: World;

describe('statements of requests', () => {
  it('checks a statement the way the suite does', async () => {
    carShareTables = await carShareTableNames(h.orm);
    expect(carShareTables).toContain('car');
    expect(carShareTables).not.toContain('car_share');
    // The checker itself: what it takes, and what it refuses.
    expect(missingConditions('select pg_notify(?, ?)')).toEqual([]);
    expect(
      missingConditions('select "c0".* from "car" as "c0" where "c0"."car_share_id" = ? and "c0"."id" = ?'),
    ).toEqual([]);
    expect(missingConditions('update "car" set "make" = ? where "id" = ? and "car_share_id" = ?')).toEqual(
      [],
    );
    expect(
      missingConditions(
        'select * from car c join profile p on p.user_id = c.owner_id where c.car_share_id = $1',
      ),
    ).toEqual(['profile as p: 0 of 1']);
    expect(missingConditions('select * from car where id = ?')).toEqual(['car: 0 of 1']);
    expect(
      missingConditions(
        'select * from car where car_share_id = ? and exists (select 1 from unavailability where car_id = car.id)',
      ),
    ).toEqual(['car, unavailability: 1 of 2']);
    expect(missingConditions('insert into rating (id, subject_id) values (?, ?)')).toEqual([
      'insert into rating',
    ]);
    expect(missingConditions('insert into "rating" ("id", "car_share_id") values (?, ?)')).toEqual([]);
    expect(missingConditions('select 1 from car_share where id = ?')).toEqual([]);
  });

  it('accounts: sign-up, the caller’s account, searches, profile and account changes, suspension', async () => {
    owner = await createUser(r, { phoneNumber: '+14155550100' });
    borrower = await verifiedBorrower(r);
    await r.ok(owner.actor, `{ me { ${USER_FIELDS} } }`);
    const SEARCH = `query($search: String, $username: String, $status: AccountStatus, $role: Role, $sort: String,
      $limit: Int, $offset: Int, $distinct: String) {
      userAccounts(search: $search, username: $username, status: $status, role: $role, sort: $sort, limit: $limit,
        offset: $offset, distinct: $distinct) { total nodes { ${USER_FIELDS} } } }`;
    await r.ok(ops, SEARCH, { search: 'lovelace', sort: 'username', limit: 5 });
    await r.ok(ops, SEARCH, {
      username: 'person',
      status: 'Active',
      role: 'user',
      sort: '-lastSignInDateUtc',
    });
    await r.ok(ops, SEARCH, { distinct: 'status', offset: 50 });
    await r.ok(owner.actor, SEARCH, {});
    await r.ok(ops, `query($id: UUID!) { userAccount(id: $id) { ${USER_FIELDS} } }`, { id: borrower.id });
    await r.ok(
      borrower.actor,
      `query($id: UUID!) { profile(id: $id) { id displayName phoneNumber rating { count } } }`,
      {
        id: owner.profileId,
      },
    );
    await r.ok(
      owner.actor,
      `mutation($id: UUID!, $input: UpdateProfileInput!) { updateProfile(id: $id, input: $input) { id phoneNumber } }`,
      { id: owner.profileId, input: { displayName: 'Ada L.', phoneNumber: '+14155550111' } },
    );
    const UPDATE = `mutation($id: UUID!, $input: UpdateUserAccountInput!) {
      updateUserAccount(id: $id, input: $input) { id username roles status } }`;
    // A wrong current password counts toward the lockout, in a statement of its own.
    const wrong = await r.run(owner.actor, UPDATE, {
      id: owner.id,
      input: { password: 'another long passphrase', currentPassword: 'not the password at all' },
    });
    expect(wrong.errors?.length).toBeGreaterThan(0);
    await r.ok(owner.actor, UPDATE, {
      id: owner.id,
      input: { password: 'another long and unusual passphrase', currentPassword: owner.password },
    });
    const other = await createUser(r);
    await r.ok(ops, UPDATE, { id: other.id, input: { roles: ['user', 'ops'] } });
    await r.ok(ops, 'mutation($id: UUID!) { suspendUserAccount(id: $id) { id status } }', { id: other.id });
    await r.ok(ops, 'mutation($id: UUID!) { reactivateUserAccount(id: $id) { id status } }', {
      id: other.id,
    });
    expect(violations()).toEqual([]);
  });

  it('cars: create, read with every embed, change, list, search, unavailabilities, delete', async () => {
    const car = await createCar(r, owner.actor);
    await r.ok(owner.actor, `query($id: UUID!) { car(id: $id) { ${CAR_EMBEDS} } }`, { id: car.id });
    await r.ok(owner.actor, 'query($id: UUID!) { car(id: $id) { id make } }', { id: car.id });
    await r.ok(owner.actor, UPDATE_CAR, {
      id: car.id,
      input: { make: 'Volvo', licensePlate: { jurisdiction: 'US-CA', number: 'NEW123' } },
    });
    await r.ok(owner.actor, LIST_CAR, { id: car.id });
    await r.ok(owner.actor, UNLIST_CAR, { id: car.id });
    w = { owner, borrower, carId: await bookableCar(r, owner) };
    const NEAR = `query($near: NearInput, $sort: String) { cars(near: $near, sort: $sort) { total nodes { id distanceKm } } }`;
    await r.ok(borrower.actor, CARS, { make: 'toyota', sort: '-hourlyRate', limit: 2 });
    await r.ok(ops, CARS, { status: 'Listed', ownerId: owner.id, from: inHours(h, 1), to: inHours(h, 3) });
    await r.ok(borrower.actor, CARS, { distinct: 'ownerId', offset: 100 });
    await r.ok(borrower.actor, NEAR, { near: { latitude: 37.77, longitude: -122.42, radiusKm: 50 } });
    await r.ok(borrower.actor, `{ cars(limit: 5) { total nodes { ${CAR_EMBEDS} } } }`);
    const u = await r.ok<{ createUnavailability: { id: string } }>(owner.actor, CREATE_UNAVAILABILITY, {
      carId: car.id,
      input: { startDateUtc: inHours(h, 48), endDateUtc: inHours(h, 50), reason: 'Maintenance' },
    });
    await r.ok(owner.actor, UNAVAILABILITIES, { carId: car.id, sort: '-endDateUtc', limit: 10 });
    await r.ok(owner.actor, UNAVAILABILITIES, { carId: car.id, distinct: 'reason', offset: 10 });
    await r.ok(owner.actor, DELETE_UNAVAILABILITY, { carId: car.id, id: u.createUnavailability.id });
    await r.ok(owner.actor, DELETE_CAR, { id: car.id });
    expect(violations()).toEqual([]);
  });

  it('verifications: submit, decide, search, one by id', async () => {
    const id = await verificationId(h, owner.id, 'DriversLicense');
    const SUBMIT = `mutation($id: UUID!, $input: SubmitVerificationInput!) {
      submitVerification(id: $id, input: $input) { id status } }`;
    await r.ok(owner.actor, SUBMIT, {
      id,
      input: { evidence: { number: 'D1', jurisdiction: 'US-CA', expiresDateUtc: '2030-01-31T00:00:00Z' } },
    });
    await r.ok(
      ops,
      'mutation($id: UUID!) { rejectVerification(id: $id, input: { reason: "Blurry" }) { id status } }',
      {
        id,
      },
    );
    await r.ok(owner.actor, SUBMIT, {
      id,
      input: { evidence: { number: 'D1', jurisdiction: 'US-CA', expiresDateUtc: '2030-01-31T00:00:00Z' } },
    });
    await r.ok(ops, 'mutation($id: UUID!) { verifyVerification(id: $id) { id status } }', { id });
    const SEARCH = `query($subjectType: SubjectType, $subjectId: UUID, $status: VerificationStatus,
      $kind: VerificationKind, $sort: String, $limit: Int, $offset: Int, $distinct: String) {
      verifications(subjectType: $subjectType, subjectId: $subjectId, status: $status, kind: $kind, sort: $sort,
        limit: $limit, offset: $offset, distinct: $distinct) { total nodes { id kind status } } }`;
    await r.ok(owner.actor, SEARCH, { status: 'Verified', sort: 'kind' });
    await r.ok(asClient(['verifications:read']), SEARCH, {
      subjectType: 'UserAccount',
      kind: 'Email',
      limit: 3,
    });
    await r.ok(ops, SEARCH, { distinct: 'subjectId', offset: 1000 });
    await r.ok(owner.actor, 'query($id: UUID!) { verification(id: $id) { id status evidence } }', { id });
    expect(violations()).toEqual([]);
  });

  let done: B;
  it('bookings: request, decide, cancel, use, extend, lock, return, complete, searches, embeds', async () => {
    const declined = await requestBooking(r, w, 30, 32);
    await r.ok(owner.actor, DECLINE, { id: declined.id, input: { reason: 'Busy' } });
    const cancelled = await requestBooking(r, w, 34, 36);
    await r.ok(borrower.actor, CANCEL, { id: cancelled.id, input: { reason: 'Plans changed' } });
    const b = await requestBooking(r, w, 24, 26);
    await r.ok(owner.actor, APPROVE, { id: b.id });
    // A request over an occupied period is refused by the same statement that would write it.
    const conflict = await r.run(borrower.actor, REQUEST, {
      carId: w.carId,
      input: { startDateUtc: inHours(h, 25), endDateUtc: inHours(h, 27) },
    });
    expect(conflict.errors?.[0]?.extensions?.code).toBe('CarUnavailable');
    await r.ok(borrower.actor, BOOKINGS, {
      role: 'borrower',
      states: ['Approved', 'Pending'],
      sort: '-startDateUtc',
    });
    await r.ok(owner.actor, BOOKINGS, { role: 'owner', from: inHours(h, -1), to: inHours(h, 100), limit: 2 });
    await r.ok(ops, BOOKINGS, { distinct: 'carId', offset: 10 });
    await r.ok(ops, BOOKINGS, { reference: b.reference });
    await r.ok(owner.actor, CAR_BOOKINGS, { carId: w.carId, states: ['Approved'], sort: 'endDateUtc' });
    await r.ok(
      borrower.actor,
      `query($id: UUID!) { booking(id: $id) { ${BOOKING_FIELDS} car { ${CAR_EMBEDS} } borrower { id rating { count } }
        feedbacks { id } } }`,
      { id: b.id },
    );
    h.clock.set(new Date(new Date(b.startDateUtc).getTime() - 10 * 60_000));
    await r.ok(borrower.actor, USE, { id: b.id });
    await r.ok(borrower.actor, EXTEND, { id: b.id, input: { endDateUtc: inHours(h, 4) } });
    await r.ok(borrower.actor, 'mutation($id: UUID!) { unlockCar(id: $id) { id lockState } }', {
      id: w.carId,
    });
    await r.ok(borrower.actor, 'mutation($id: UUID!) { lockCar(id: $id) { id lockState } }', { id: w.carId });
    await r.ok(borrower.actor, RETURN, { id: b.id });
    done = (await r.ok<{ completeBooking: B }>(owner.actor, COMPLETE, { id: b.id })).completeBooking;
    expect(violations()).toEqual([]);
  });

  it('feedback and ratings: leave, change, search, read, delete', async () => {
    const CREATE = `mutation($id: UUID!, $input: CreateFeedbackInput!) {
      createFeedback(carBookingId: $id, input: $input) { id rating } }`;
    const f = await r.ok<{ createFeedback: { id: string } }>(borrower.actor, CREATE, {
      id: done.id,
      input: { rating: 4, comment: 'Clean car' },
    });
    await r.ok(owner.actor, CREATE, { id: done.id, input: { rating: 5 } });
    const id = f.createFeedback.id;
    await r.ok(
      borrower.actor,
      'mutation($id: UUID!) { updateFeedback(id: $id, input: { rating: 3 }) { id rating } }',
      { id },
    );
    const SEARCH = `query($subjectType: SubjectType, $subjectId: UUID, $sort: String, $limit: Int, $offset: Int,
      $distinct: String) { feedbacks(subjectType: $subjectType, subjectId: $subjectId, sort: $sort, limit: $limit,
        offset: $offset, distinct: $distinct) { total nodes { id rating } } }`;
    await r.ok(borrower.actor, SEARCH, { subjectType: 'Car', subjectId: w.carId, sort: 'rating', limit: 5 });
    await r.ok(borrower.actor, SEARCH, { distinct: 'authorId', offset: 20 });
    await r.ok(borrower.actor, 'query($id: UUID!) { feedback(id: $id) { id comment } }', { id });
    await r.ok(
      borrower.actor,
      'query($id: UUID!) { rating(subjectType: Car, subjectId: $id) { id count average } }',
      {
        id: w.carId,
      },
    );
    await r.ok(borrower.actor, 'mutation($id: UUID!) { deleteFeedback(id: $id) { id } }', { id });
    expect(violations()).toEqual([]);
  });

  it('client applications: create, search, read, change, rotate, suspend, reactivate, delete', async () => {
    const FIELDS = 'id name clientId status connectedUsers lastUsedDateUtc';
    const a = await r.ok<{ createClientApplication: { id: string } }>(
      ops,
      `mutation($input: CreateClientApplicationInput!) { createClientApplication(input: $input) { ${FIELDS} } }`,
      {
        input: {
          name: 'Fleet planner',
          grantTypes: ['authorization_code', 'client_credentials'],
          redirectUris: ['https://fleet.example/callback'],
          allowedScopes: ['cars:read', 'openid'],
        },
      },
    );
    const id = a.createClientApplication.id;
    const SEARCH = `query($name: String, $status: ClientApplicationStatus, $sort: String, $limit: Int, $offset: Int) {
      clientApplications(name: $name, status: $status, sort: $sort, limit: $limit, offset: $offset) {
        total nodes { ${FIELDS} } } }`;
    await r.ok(ops, SEARCH, { name: 'fleet', status: 'Active', sort: 'name', limit: 5 });
    await r.ok(ops, SEARCH, { offset: 100 });
    await r.ok(ops, `query($id: UUID!) { clientApplication(id: $id) { ${FIELDS} } }`, { id });
    await r.ok(
      ops,
      `mutation($id: UUID!) { updateClientApplication(id: $id, input: { description: "Plans" }) { id } }`,
      { id },
    );
    await r.ok(ops, 'mutation($id: UUID!) { rotateClientApplicationSecret(id: $id) { id clientSecret } }', {
      id,
    });
    await r.ok(ops, 'mutation($id: UUID!) { suspendClientApplication(id: $id) { id status } }', { id });
    await r.ok(ops, 'mutation($id: UUID!) { reactivateClientApplication(id: $id) { id status } }', { id });
    await r.ok(ops, 'mutation($id: UUID!) { deleteClientApplication(id: $id) { id } }', { id });
    expect(violations()).toEqual([]);
  });

  it('audit search: filters, sort, paging', async () => {
    const SEARCH = `query($actorId: UUID, $subjectType: AuditSubjectType, $subjectId: UUID, $action: String,
      $fromUtc: DateTime, $toUtc: DateTime, $sort: String, $limit: Int, $offset: Int, $distinct: String) {
      auditEntries(actorId: $actorId, subjectType: $subjectType, subjectId: $subjectId, action: $action,
        fromUtc: $fromUtc, toUtc: $toUtc, sort: $sort, limit: $limit, offset: $offset, distinct: $distinct) {
        total nodes { id action } } }`;
    await r.ok(ops, SEARCH, { action: 'createCar', sort: 'action', limit: 3 });
    await r.ok(ops, SEARCH, { actorId: owner.id, fromUtc: inHours(h, -1000), toUtc: inHours(h, 1000) });
    await r.ok(asClient(['reports:read']), SEARCH, { distinct: 'actorId', offset: 500 });
    expect(violations()).toEqual([]);
  });

  it('reports: the summary', async () => {
    await r.ok(
      ops,
      '{ summary { id bookingsByState { pending approved } users { active unverified } cars { listed } } }',
    );
    expect(violations()).toEqual([]);
  });

  it('a new car share: its first operator, written in the transaction that creates it, names it', async () => {
    const host = `cs-${Date.now().toString(36)}.example`;
    const { carShare, result } = await recording('createCarShare', () =>
      createCarShare(h.orm, { baseUrl: `https://${host}`, name: 'Second' }, (em) =>
        createFirstOperator(em, { username: `ops@${host}`, password: 'a long and unusual passphrase' }),
      ),
    );
    const written = recorded.filter((s) => s.by === 'createCarShare').map((s) => s.sql);
    expect(written.some((s) => /^\s*insert into "user_account"/.test(s))).toBe(true);
    expect(violations('createCarShare')).toEqual([]);
    // The account is the new car share's, and reached in its scope.
    const [row] = await scopedSql<{ car_share_id: string }>(
      h.orm,
      'select car_share_id from user_account where car_share_id = ? and id = ?',
      [carShare.id, result.Id],
      carShare.id,
    );
    expect(row?.car_share_id).toBe(carShare.id);
  });

  it('background steps: booking timers and verification expiry, in a car share’s scope', async () => {
    // A Pending request left to expire, an Approved booking left unused (a no-show), a Returned one left to
    // complete, and a Verified record whose evidence expires.
    await requestBooking(r, w, 200, 202);
    const noShow = await requestBooking(r, w, 204, 206);
    await r.ok(owner.actor, APPROVE, { id: noShow.id });
    const returned = await requestBooking(r, w, 208, 210);
    await r.ok(owner.actor, APPROVE, { id: returned.id });
    h.clock.set(inHours(h, 207.9));
    await r.ok(borrower.actor, USE, { id: returned.id });
    await r.ok(borrower.actor, RETURN, { id: returned.id });
    await sql(h, `update verification set status = 'Verified', expires_date_utc = ? where id = ?`, [
      inHours(h, 1),
      await verificationId(h, owner.id, 'DriversLicense'),
    ]);
    h.clock.set(inHours(h, 400));
    await recording('background: booking timers', () =>
      sweepBookingTimers(h.orm, h.clock, defaultBookingPolicy, 100),
    );
    await recording('background: verification expiry', () =>
      scoped(h.orm).transactional((em) => expireVerifications({ em, clock: h.clock })),
    );
    expect(violations('background')).toEqual([]);
    // They did their work: each kind of statement a sweep runs was recorded.
    const background = recorded.filter((s) => s.by.startsWith('background')).map((s) => s.sql);
    expect(background.some((s) => /skip locked/i.test(s))).toBe(true);
    expect(background.filter((s) => /^\s*update "car_booking"/.test(s)).length).toBeGreaterThanOrEqual(3);
    expect(background.some((s) => /^\s*update "verification"/.test(s))).toBe(true);
  });
});

describe('the data layer', () => {
  it('a flush names the entity’s car share in its updates (one per entity) and deletes; finds name the scope’s', async () => {
    const em = scoped(h.orm);
    const accounts = await recording('data layer', () => em.find(UserAccount, {}, { limit: 3 }));
    expect(accounts.length).toBeGreaterThanOrEqual(3);
    for (const a of accounts) a.lastModifiedDateUtc = h.clock.now();
    await recording('data layer', () => em.flush());
    const updates = recorded.filter((s) => s.by === 'data layer' && /^\s*update\b/i.test(s.sql));
    expect(updates).toHaveLength(3);
    const apps = [0, 1].map(() =>
      em.create(ClientApplication, {
        id: newId(),
        name: 'Doomed',
        description: null,
        clientId: newId(),
        secretHash: 'x',
        grantTypes: ['client_credentials'],
        redirectUris: [],
        allowedScopes: [],
        allowRefresh: false,
        isFirstParty: false,
        status: 'Active',
        lastUsedDateUtc: null,
        createdDateUtc: h.clock.now(),
        lastModifiedDateUtc: h.clock.now(),
      }),
    );
    await recording('data layer', () => em.flush());
    expect(apps.map((a) => a.carShareId)).toEqual([defaultCarShareId(), defaultCarShareId()]);
    for (const a of apps) em.remove(a);
    await recording('data layer', () => em.flush());
    expect(recorded.some((s) => s.by === 'data layer' && /^\s*delete\b/i.test(s.sql))).toBe(true);
    expect(violations('data layer')).toEqual([]);
  });

  it('the global EntityManager (the migrator’s) is in no car share, and asking does not throw', () => {
    expect(carShareOf(h.orm.em)).toBeUndefined();
  });

  it('work across car shares (deploymentEm) gets no car share condition', async () => {
    await recording('deployment', () => deploymentEm(h.orm).count(Car, {}));
    const [count] = recorded.filter((s) => s.by === 'deployment');
    expect(count?.sql).not.toMatch(/car_share_id/);
  });
});

describe('the suite', () => {
  it('recorded reads, inserts, updates, deletes and row locks of every car share table a request touches', () => {
    const sql = recorded.map((s) => s.sql);
    for (const kind of [
      /^\s*select\b/i,
      /^\s*insert\b/i,
      /^\s*update\b/i,
      /^\s*delete\b/i,
      /\bfor update\b/i,
    ])
      expect(
        sql.some((s) => kind.test(s)),
        String(kind),
      ).toBe(true);
    const touched = new Set(sql.flatMap((s) => tableRefs(s).map((t) => t.table)));
    for (const table of [
      'user_account',
      'profile',
      'verification',
      'rating',
      'car',
      'unavailability',
      'car_booking',
      'car_lock_command',
      'feedback',
      'client_application',
      'oauth_model',
      'oauth_consent',
      'outbox_event',
      'audit_entry',
    ])
      expect(touched, table).toContain(table);
  });

  it('row claims (for update skip locked) name their car share', () => {
    const claims = recorded.filter((s) => /\bskip\s+locked\b/i.test(s.sql));
    expect(claims.filter((c) => !/car_share_id"?\s*=\s*(\?|\$\d+)/i.test(c.sql))).toEqual([]);
  });
});
