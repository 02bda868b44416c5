// Every GraphQL operation, for each role (a user as owner, as borrower, as stranger; ops; a client application),
// with and without each relevant scope, on real tokens over HTTPS: allowed or refused exactly as CONTRACT §4, §6,
// §7 and §8 say. Expectations are written out here from the contract, not read from the permission table.
import { randomUUID } from 'node:crypto';
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiScopes, type Scope } from '../../src/access/actor.js';
import { createUser, markVerified, type TestUser } from '../factories/accounts.js';
import {
  APPROVE,
  bookableCar,
  bookingIn,
  type Reachable,
  requestBooking,
  type World,
  world,
} from '../factories/bookings.js';
import { carInput, createCar } from '../factories/cars.js';
import { asOps } from '../support/actors.js';
import { useHarness } from '../support/harness.js';
import {
  Browser,
  configFor,
  createClient,
  gql,
  type OAuthService,
  OPS,
  startOAuthService,
  type TestClient,
  userTokens,
} from './support.js';

type Who = 'owner' | 'borrower' | 'stranger' | 'ops' | 'app';
/**
 * ok: no error. NotFound / Forbidden: refused by relationship or role. Refused: either of those, where the contract
 * says "not allowed" without saying which. Scope: 403 insufficient_scope. State: InvalidStateTransition (a party who may
 * take the action, but not from the booking's state). Conflict: Conflict with Reason CarInUse (the owner locking a
 * car someone is using). Both are 409 over REST; GraphQL carries the code.
 */
type Outcome = 'ok' | 'NotFound' | 'Forbidden' | 'Refused' | 'Scope' | 'Unauthorized' | 'State' | 'Conflict';
type Vars = Record<string, unknown>;
/**
 * Scopes any one of which lets this caller through, what it gets then (default ok), and what it gets holding
 * every other scope (default Scope: 403 insufficient_scope).
 */
type Allowed = { any: Scope[]; gets?: Outcome; lacking?: Outcome };

interface Spec {
  op: string;
  doc: string;
  vars: () => Vars | Promise<Vars>;
  /** Anonymous callers: refused with 401 unless the operation is public. */
  anonymous?: 'ok';
  /** A caller absent here is refused (Forbidden) whatever its scopes. */
  who: Partial<Record<Who, Allowed>>;
  /** An operator whose token lacks `ops` acts as a plain user: what they get (default Forbidden). */
  opsAsUser?: Outcome;
}

let s: OAuthService;
let w: World;
let stranger: TestUser;
let victim: TestUser;
let f: {
  returned: string;
  feedback: string;
  ownerEmailVerification: string;
  ownerPhoneVerification: string;
  pendingVerification: string;
  draftCar: string;
  clientApp: string;
  opsId: string;
  idleCar: string;
  busyCar: string;
};
let userApp: TestClient;
let machine: TestClient;
const browsers = new Map<string, Browser>();
const tokens = new Map<string, string>();

// Made before the OAuth service starts, so emptying the database leaves its bootstrap operator in place.
const h = useHarness({ now: new Date().toISOString(), resetEach: false });

const REDIRECT = 'https://matrix.example/callback';
const sql = (q: string, p: unknown[] = []) => h.orm.em.fork().getConnection().execute(q, p);
let serial = 0;
const next = () => ++serial;

beforeAll(async () => {
  // Webhook targets on loopback (nothing listens): delivery is not what this test is about.
  s = await startOAuthService({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  w = await world(h);
  stranger = await createUser(h);
  victim = await createUser(h);
  const returned = await bookingIn(h, w, 'Returned');
  const fb = await h.ok<{ createFeedback: { id: string } }>(
    w.borrower.actor,
    'mutation($id: UUID!) { createFeedback(carBookingId: $id, input: { rating: 5 }) { id } }',
    { id: returned.id },
  );
  const verif = async (userId: string, kind: string) =>
    (
      (await sql('select id from verification where subject_id = ? and kind = ?', [userId, kind])) as {
        id: string;
      }[]
    )[0]!.id;
  const draft = await createCar(h, w.owner.actor);
  // A car with nothing InUse, and one the borrower is using (lock and unlock depend on which).
  const idleCar = await bookableCar(h, w.owner);
  const busy = { ...w, carId: await bookableCar(h, w.owner) };
  await bookingIn(h, busy, 'InUse');
  h.clock.set(new Date());
  const [ops] = (await sql('select id from user_account where username = ?', [OPS.username])) as {
    id: string;
  }[];
  userApp = await createClient(s, {
    grants: ['authorization_code'],
    scopes: [...apiScopes],
    redirectUris: [REDIRECT],
  });
  machine = await createClient(s, { grants: ['client_credentials'], scopes: [...apiScopes] });
  f = {
    returned: returned.id,
    feedback: fb.createFeedback.id,
    ownerEmailVerification: await verif(w.owner.id, 'Email'),
    ownerPhoneVerification: await verif(w.owner.id, 'PhoneNumber'),
    pendingVerification: await verif(victim.id, 'DriversLicense'),
    draftCar: draft.id,
    clientApp: (await createClient(s, { grants: ['client_credentials'], scopes: ['users:read'] })).id,
    opsId: ops!.id,
    idleCar,
    busyCar: busy.carId,
  };
  // Verified borrowers, so that a request by them tests who may book, not the verification guard.
  await markVerified(h, 'UserAccount', stranger.id);
  await markVerified(h, 'UserAccount', f.opsId);
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const person = (who: Who) =>
  who === 'owner' ? w.owner : who === 'borrower' ? w.borrower : who === 'stranger' ? stranger : OPS;

/** A real token for this caller and exactly these scopes (users: authorization code; apps: client credentials). */
async function token(who: Who, scopes: readonly Scope[]): Promise<string> {
  const key = `${who}|${[...scopes].sort().join(' ')}`;
  const cached = tokens.get(key);
  if (cached) return cached;
  let value: string;
  if (who === 'app') {
    value = (await oc.clientCredentialsGrant(await configFor(s, machine), { scope: scopes.join(' ') }))
      .access_token;
  } else {
    const browser = browsers.get(who) ?? new Browser(s);
    browsers.set(who, browser);
    const t = await userTokens(s, userApp, REDIRECT, person(who), scopes.join(' '), browser);
    value = t.access_token;
  }
  tokens.set(key, value);
  return value;
}

const without = (...drop: Scope[]): Scope[] => apiScopes.filter((x) => !drop.includes(x) && x !== 'ops');
const users = (a: Allowed, others: Outcome = 'NotFound'): Partial<Record<Who, Allowed>> => ({
  owner: a,
  borrower: { any: a.any, gets: others },
  stranger: { any: a.any, gets: others },
});
const everyone = (a: Allowed): Partial<Record<Who, Allowed>> => ({ owner: a, borrower: a, stranger: a });
const opsOnly: Partial<Record<Who, Allowed>> = { ops: { any: [] } };

const pendingVerification = async () => {
  await sql(
    `update verification set status = 'Pending', evidence = '{"number":"D1234567","jurisdiction":"CA","expiresDateUtc":"2031-01-01T00:00:00.000Z"}' where id = ?`,
    [f.pendingVerification],
  );
  return { id: f.pendingVerification };
};
const freshCar = async (status?: 'Listed') => {
  const car = await createCar(h, w.owner.actor);
  if (status) await sql('update car set status = ? where id = ?', [status, car.id]);
  return { id: car.id as string };
};
const freshReturnedBooking = async () => ({ id: (await bookingIn(h, w, 'Returned')).id as string });
const freshFeedback = async () => {
  const b = await bookingIn(h, w, 'Returned');
  const d = await h.ok<{ createFeedback: { id: string } }>(
    w.borrower.actor,
    'mutation($id: UUID!) { createFeedback(carBookingId: $id, input: { rating: 3 }) { id } }',
    { id: b.id },
  );
  return { id: d.createFeedback.id };
};
const freshClientApp = async () => ({
  id: (await createClient(s, { grants: ['client_credentials'], scopes: ['users:read'] })).id,
});
const period = () => {
  const start = new Date(Date.UTC(2031, 0, 1) + next() * 86_400_000);
  return {
    startDateUtc: start.toISOString(),
    endDateUtc: new Date(start.getTime() + 3_600_000).toISOString(),
  };
};

const iso = (ms: number) => new Date(ms).toISOString();
/**
 * A booking in `state` on a new car of the world's owner (so no other case's booking holds its period), a day
 * ahead of the real clock the service runs on.
 */
const freshBooking = async (state: Reachable) => {
  h.clock.set(new Date());
  const b = await bookingIn(h, { ...w, carId: await bookableCar(h, w.owner) }, state);
  return { id: b.id as string, start: Date.parse(b.startDateUtc) };
};
/** An Approved booking whose use window is open on the real clock: it started 44 minutes ago, for 2 hours. */
const usableBooking = async () => {
  h.clock.set(new Date(Date.now() - 3_600_000));
  const b = await requestBooking(h, { ...w, carId: await bookableCar(h, w.owner) }, 16 / 60, 16 / 60 + 2);
  await h.ok(w.owner.actor, APPROVE, { id: b.id });
  h.clock.set(new Date());
  return { id: b.id as string };
};
type Parties = { owner: Outcome; borrower: Outcome; ops: Outcome };
/**
 * A booking action (CONTRACT §6): each party's outcome with `bookings:write`; a stranger (no party) is told the
 * booking does not exist; an operator without `ops` is such a stranger; client applications never act (403).
 */
const action = (p: Parties): Partial<Record<Who, Allowed>> => ({
  owner: { any: ['bookings:write'], gets: p.owner },
  borrower: { any: ['bookings:write'], gets: p.borrower },
  stranger: { any: ['bookings:write'], gets: 'NotFound' },
  ops: { any: [], gets: p.ops },
});
const hook = () => `https://127.0.0.1:9/matrix/${next()}`;
const CREATE_HOOK =
  'mutation($input: CreateWebhookSubscriptionsInput!) { createWebhookSubscriptions(input: $input) { id } }';
/** A new subscription of the owner's. */
const freshSubscription = async () => {
  const r = await gql(s, await token('owner', ['webhooks:write']), CREATE_HOOK, {
    input: { name: 'Matrix hook', events: ['carbooking_approve'], config: { url: hook() } },
  });
  expect(r.errors).toBeUndefined();
  return { id: r.data!.createWebhookSubscriptions[0].id as string };
};
/** A new delivery (a webhook_test) of a new subscription of the owner's; `Failed` when `finished`. */
const freshDelivery = async (finished = false) => {
  const { id } = await freshSubscription();
  const r = await gql(
    s,
    await token('owner', ['webhooks:write']),
    'mutation($id: UUID!) { testWebhookSubscription(id: $id) { id } }',
    { id },
  );
  expect(r.errors).toBeUndefined();
  const delivery = r.data!.testWebhookSubscription.id as string;
  if (finished)
    await sql(`update webhook_delivery set status = 'Failed', next_attempt_date_utc = null where id = ?`, [
      delivery,
    ]);
  return { id: delivery };
};
/**
 * A webhook operation on one subscription or delivery of the owner's (CONTRACT §7, §8): its creator with the
 * scope, ops (who see all); another user, a client application, or an operator without `ops` are refused.
 */
const ownersHook = (scope: Scope): Partial<Record<Who, Allowed>> => ({
  ...users({ any: [scope] }, 'Refused'),
  ops: { any: [] },
  app: { any: [scope], gets: 'Refused' },
});
/** Lock and unlock of a car with nothing InUse (CONTRACT §7): its owner (`cars:write`, §4) and ops. */
const idleLock: Partial<Record<Who, Allowed>> = {
  owner: { any: ['cars:write'] },
  borrower: { any: ['cars:write'], gets: 'Refused', lacking: 'Refused' },
  stranger: { any: ['cars:write'], gets: 'Refused', lacking: 'Refused' },
  ops: { any: [] },
};
/**
 * Lock and unlock of a car the borrower is using: the borrower, acting on their booking (`bookings:write`), and
 * ops; the owner, holding the scope for it, meets 409 CarInUse.
 */
const busyLock: Partial<Record<Who, Allowed>> = {
  owner: { any: ['cars:write'], gets: 'Conflict' },
  borrower: { any: ['bookings:write'] },
  stranger: { any: ['cars:write'], gets: 'Refused', lacking: 'Refused' },
  ops: { any: [] },
};

const specs: Spec[] = [
  // accounts and profiles (CONTRACT §7)
  {
    op: 'me',
    doc: '{ me { id } }',
    vars: () => ({}),
    who: { ...everyone({ any: ['account:read'] }), ops: { any: [] } },
    opsAsUser: 'ok',
  },
  {
    op: 'userAccounts',
    doc: '{ userAccounts { total } }',
    vars: () => ({}),
    who: { ...everyone({ any: ['account:read'] }), ops: { any: [] }, app: { any: ['users:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'userAccount',
    doc: 'query($id: UUID!) { userAccount(id: $id) { id } }',
    vars: () => ({ id: w.owner.id }),
    who: { ...users({ any: ['account:read'] }), ops: { any: [] }, app: { any: ['users:read'] } },
    opsAsUser: 'NotFound',
  },
  {
    op: 'createUserAccount',
    doc: 'mutation($input: CreateUserAccountInput!) { createUserAccount(input: $input) { id } }',
    vars: () => ({
      input: {
        username: `matrix${next()}.${randomUUID()}@example.com`,
        password: 'matrix passphrase',
        firstName: 'M',
        lastName: 'X',
      },
    }),
    anonymous: 'ok',
    who: { ...everyone({ any: [] }), ops: { any: [] }, app: { any: [] } },
    opsAsUser: 'ok',
  },
  {
    op: 'updateUserAccount',
    doc: 'mutation($id: UUID!) { updateUserAccount(id: $id, input: {}) { id } }',
    vars: () => ({ id: w.owner.id }),
    who: { ...users({ any: ['account:write'] }), ops: { any: [] }, app: { any: ['users:write'] } },
    opsAsUser: 'NotFound',
  },
  {
    op: 'suspendUserAccount',
    doc: 'mutation($id: UUID!) { suspendUserAccount(id: $id) { id } }',
    vars: () => ({ id: victim.id }),
    who: { ops: { any: [] }, app: { any: ['users:write'] } },
  },
  {
    op: 'reactivateUserAccount',
    doc: 'mutation($id: UUID!) { reactivateUserAccount(id: $id) { id } }',
    vars: () => ({ id: victim.id }),
    who: { ops: { any: [] }, app: { any: ['users:write'] } },
  },
  {
    op: 'profile',
    doc: 'query($id: UUID!) { profile(id: $id) { id } }',
    vars: () => ({ id: w.owner.profileId }),
    who: { ...everyone({ any: [] }), ops: { any: [] }, app: { any: [] } },
    opsAsUser: 'ok',
  },
  {
    op: 'updateProfile',
    doc: 'mutation($id: UUID!) { updateProfile(id: $id, input: { description: "matrix" }) { id } }',
    vars: () => ({ id: w.owner.profileId }),
    who: { ...users({ any: ['account:write'] }, 'Forbidden'), ops: { any: [] } },
    opsAsUser: 'Forbidden',
  },
  // verifications (CONTRACT §5, §7)
  {
    op: 'verifications',
    doc: '{ verifications { total } }',
    vars: () => ({}),
    who: {
      ...everyone({ any: ['account:read', 'verifications:read'] }),
      ops: { any: [] },
      app: { any: ['verifications:read'] },
    },
    opsAsUser: 'ok',
  },
  {
    op: 'verification',
    doc: 'query($id: UUID!) { verification(id: $id) { id } }',
    vars: () => ({ id: f.ownerEmailVerification }),
    who: {
      ...users({ any: ['account:read', 'verifications:read'] }),
      ops: { any: [] },
      app: { any: ['verifications:read'] },
    },
    opsAsUser: 'NotFound',
  },
  {
    op: 'submitVerification',
    doc: 'mutation($id: UUID!) { submitVerification(id: $id, input: { evidence: { phoneNumber: "+14155550123" } }) { id } }',
    vars: async () => {
      await sql(`update verification set status = 'Unverified', evidence = null where id = ?`, [
        f.ownerPhoneVerification,
      ]);
      return { id: f.ownerPhoneVerification };
    },
    // Only the subject; anyone else is told it does not exist, whatever scopes they hold.
    who: {
      owner: { any: ['account:write'] },
      borrower: { any: ['account:write'], gets: 'NotFound', lacking: 'NotFound' },
      stranger: { any: ['account:write'], gets: 'NotFound', lacking: 'NotFound' },
      ops: { any: [], gets: 'Refused' },
    },
    opsAsUser: 'NotFound',
  },
  {
    op: 'verifyVerification',
    doc: 'mutation($id: UUID!) { verifyVerification(id: $id) { id } }',
    vars: pendingVerification,
    who: { ops: { any: [] }, app: { any: ['verifications:write'] } },
  },
  {
    op: 'rejectVerification',
    doc: 'mutation($id: UUID!) { rejectVerification(id: $id) { id } }',
    vars: pendingVerification,
    who: { ops: { any: [] }, app: { any: ['verifications:write'] } },
  },
  // ratings and feedback (CONTRACT §5, §7)
  {
    op: 'rating',
    doc: 'query($id: UUID!) { rating(subjectType: Car, subjectId: $id) { count } }',
    vars: () => ({ id: w.carId }),
    who: { ...everyone({ any: ['feedback:read'] }), ops: { any: [] }, app: { any: ['feedback:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'feedbacks',
    doc: '{ feedbacks { total } }',
    vars: () => ({}),
    who: { ...everyone({ any: ['feedback:read'] }), ops: { any: [] }, app: { any: ['feedback:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'feedback',
    doc: 'query($id: UUID!) { feedback(id: $id) { id } }',
    vars: () => ({ id: f.feedback }),
    who: { ...everyone({ any: ['feedback:read'] }), ops: { any: [] }, app: { any: ['feedback:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'createFeedback',
    doc: 'mutation($id: UUID!) { createFeedback(carBookingId: $id, input: { rating: 4 }) { id } }',
    vars: freshReturnedBooking,
    // Both parties write; anyone else is told the booking does not exist; ops never leave feedback.
    who: {
      owner: { any: ['feedback:write'] },
      borrower: { any: ['feedback:write'] },
      stranger: { any: ['feedback:write'], gets: 'NotFound' },
    },
    opsAsUser: 'NotFound',
  },
  {
    op: 'updateFeedback',
    doc: 'mutation($id: UUID!) { updateFeedback(id: $id, input: { rating: 4 }) { id } }',
    vars: () => ({ id: f.feedback }),
    // Only its author; others holding just feedback:write cannot even read it, so it does not exist for them.
    who: {
      borrower: { any: ['feedback:write'] },
      owner: { any: ['feedback:write'], gets: 'NotFound' },
      stranger: { any: ['feedback:write'], gets: 'NotFound' },
      ops: { any: [], gets: 'Forbidden' },
    },
    opsAsUser: 'Forbidden',
  },
  {
    op: 'deleteFeedback',
    doc: 'mutation($id: UUID!) { deleteFeedback(id: $id) { id } }',
    vars: freshFeedback,
    // Its author, and ops (moderation; the contract names no other writer).
    who: {
      borrower: { any: ['feedback:write'] },
      owner: { any: ['feedback:write'], gets: 'NotFound' },
      stranger: { any: ['feedback:write'], gets: 'NotFound' },
      ops: { any: [] },
    },
    opsAsUser: 'Forbidden',
  },
  // cars and unavailability (CONTRACT §7); the car is Listed, so managing its unavailability is Forbidden to
  // anyone who is not its owner or ops (the refusal rule: a visible resource, an action never theirs)
  {
    op: 'cars',
    doc: '{ cars { total } }',
    vars: () => ({}),
    who: { ...everyone({ any: ['cars:read'] }), ops: { any: [] }, app: { any: ['cars:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'car',
    doc: 'query($id: UUID!) { car(id: $id) { id } }',
    vars: () => ({ id: w.carId }),
    who: { ...everyone({ any: ['cars:read'] }), ops: { any: [] }, app: { any: ['cars:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'car (a Draft: only its owner, ops and apps see it)',
    doc: 'query($id: UUID!) { car(id: $id) { id } }',
    vars: () => ({ id: f.draftCar }),
    who: { ...users({ any: ['cars:read'] }), ops: { any: [] }, app: { any: ['cars:read'] } },
    opsAsUser: 'NotFound',
  },
  {
    op: 'createCar',
    doc: 'mutation($input: CreateCarInput!) { createCar(input: $input) { id } }',
    vars: () => ({ input: carInput() }),
    who: { ...everyone({ any: ['cars:write'] }), ops: { any: [] } },
    opsAsUser: 'ok',
  },
  {
    op: 'updateCar',
    doc: 'mutation($id: UUID!) { updateCar(id: $id, input: { color: "Red" }) { id } }',
    vars: () => ({ id: w.carId }),
    who: { ...users({ any: ['cars:write'] }), ops: { any: [] } },
    opsAsUser: 'NotFound',
  },
  {
    op: 'deleteCar',
    doc: 'mutation($id: UUID!) { deleteCar(id: $id) { id } }',
    vars: () => freshCar(),
    who: { ...users({ any: ['cars:write'] }), ops: { any: [] } },
    opsAsUser: 'NotFound',
  },
  {
    op: 'listCar',
    doc: 'mutation($id: UUID!) { listCar(id: $id) { id } }',
    vars: () => freshCar(),
    who: { ...users({ any: ['cars:write'] }), ops: { any: [] } },
    opsAsUser: 'NotFound',
  },
  {
    op: 'unlistCar',
    doc: 'mutation($id: UUID!) { unlistCar(id: $id) { id } }',
    vars: () => freshCar('Listed'),
    who: { ...users({ any: ['cars:write'] }), ops: { any: [] } },
    opsAsUser: 'NotFound',
  },
  {
    op: 'unavailabilities',
    doc: 'query($id: UUID!) { unavailabilities(carId: $id) { total } }',
    vars: () => ({ id: w.carId }),
    who: { ...users({ any: ['cars:read'] }, 'Forbidden'), ops: { any: [] } },
    opsAsUser: 'Forbidden',
  },
  {
    op: 'createUnavailability',
    doc: 'mutation($id: UUID!, $input: CreateUnavailabilityInput!) { createUnavailability(carId: $id, input: $input) { id } }',
    vars: () => ({ id: w.carId, input: period() }),
    who: { ...users({ any: ['cars:write'] }, 'Forbidden'), ops: { any: [] } },
    opsAsUser: 'Forbidden',
  },
  {
    op: 'deleteUnavailability',
    doc: 'mutation($carId: UUID!, $id: UUID!) { deleteUnavailability(carId: $carId, id: $id) { id } }',
    vars: async () => {
      const d = await h.ok<{ createUnavailability: { id: string } }>(
        w.owner.actor,
        'mutation($id: UUID!, $input: CreateUnavailabilityInput!) { createUnavailability(carId: $id, input: $input) { id } }',
        { id: w.carId, input: period() },
      );
      return { carId: w.carId, id: d.createUnavailability.id };
    },
    who: { ...users({ any: ['cars:write'] }, 'Forbidden'), ops: { any: [] } },
    opsAsUser: 'Forbidden',
  },
  // bookings, read side (CONTRACT §6): parties see their bookings, anyone else is told they do not exist
  {
    op: 'bookings',
    doc: '{ bookings { total } }',
    vars: () => ({}),
    who: { ...everyone({ any: ['bookings:read'] }), ops: { any: [] }, app: { any: ['reports:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'carBookings',
    doc: 'query($id: UUID!) { carBookings(carId: $id) { total } }',
    vars: () => ({ id: w.carId }),
    who: { ...everyone({ any: ['bookings:read'] }), ops: { any: [] }, app: { any: ['reports:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'booking',
    doc: 'query($id: UUID!) { booking(id: $id) { id } }',
    vars: () => ({ id: f.returned }),
    who: {
      owner: { any: ['bookings:read'] },
      borrower: { any: ['bookings:read'] },
      stranger: { any: ['bookings:read'], gets: 'NotFound' },
      ops: { any: [] },
      app: { any: ['reports:read'] },
    },
    // An operator's token without `ops` but with reports:read still reads network-wide (CONTRACT §6).
    opsAsUser: 'ok',
  },
  // the summary report (CONTRACT §7): ops, and client applications with reports:read
  {
    op: 'summary',
    doc: '{ summary { __typename } }',
    vars: () => ({}),
    who: { ops: { any: [] }, app: { any: ['reports:read'] } },
  },
  // the audit trail (CONTRACT §18): the same readers as the summary
  {
    op: 'auditEntries',
    doc: '{ auditEntries { total } }',
    vars: () => ({}),
    who: { ops: { any: [] }, app: { any: ['reports:read'] } },
  },
  // client applications (CONTRACT §7): operators only, through a token carrying `ops`
  {
    op: 'clientApplications',
    doc: '{ clientApplications { total } }',
    vars: () => ({}),
    who: opsOnly,
  },
  {
    op: 'clientApplication',
    doc: 'query($id: UUID!) { clientApplication(id: $id) { id } }',
    vars: () => ({ id: f.clientApp }),
    who: opsOnly,
  },
  {
    op: 'createClientApplication',
    doc: 'mutation { createClientApplication(input: { name: "Matrix app", grantTypes: [client_credentials] }) { id } }',
    vars: () => ({}),
    who: opsOnly,
  },
  {
    op: 'updateClientApplication',
    doc: 'mutation($id: UUID!) { updateClientApplication(id: $id, input: { description: "matrix" }) { id } }',
    vars: () => ({ id: f.clientApp }),
    who: opsOnly,
  },
  {
    op: 'rotateClientApplicationSecret',
    doc: 'mutation($id: UUID!) { rotateClientApplicationSecret(id: $id) { id } }',
    vars: freshClientApp,
    who: opsOnly,
  },
  {
    op: 'suspendClientApplication',
    doc: 'mutation($id: UUID!) { suspendClientApplication(id: $id) { id } }',
    vars: freshClientApp,
    who: opsOnly,
  },
  {
    op: 'reactivateClientApplication',
    doc: 'mutation($id: UUID!) { reactivateClientApplication(id: $id) { id } }',
    vars: freshClientApp,
    who: opsOnly,
  },
  {
    op: 'deleteClientApplication',
    doc: 'mutation($id: UUID!) { deleteClientApplication(id: $id) { id } }',
    vars: freshClientApp,
    who: opsOnly,
  },
  // bookings, actions (CONTRACT §6): not a party → 404; a party who may never → 403; wrong state → 409
  {
    op: 'requestBooking',
    doc: 'mutation($carId: UUID!, $input: RequestBookingInput!) { requestBooking(carId: $carId, input: $input) { id } }',
    vars: () => {
      const start = Date.now() + (48 + 3 * next()) * 3_600_000;
      return { carId: w.carId, input: { startDateUtc: iso(start), endDateUtc: iso(start + 2 * 3_600_000) } };
    },
    // Any verified user but the car's owner; an operator books as a user, not through `ops`.
    who: {
      owner: { any: ['bookings:write'], gets: 'Forbidden' },
      borrower: { any: ['bookings:write'] },
      stranger: { any: ['bookings:write'] },
    },
    opsAsUser: 'ok',
  },
  {
    op: 'approveBooking',
    doc: 'mutation($id: UUID!) { approveBooking(id: $id) { id } }',
    vars: () => freshBooking('Pending'),
    who: action({ owner: 'ok', borrower: 'Forbidden', ops: 'ok' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'approveBooking (one already Approved)',
    doc: 'mutation($id: UUID!) { approveBooking(id: $id) { id } }',
    vars: () => freshBooking('Approved'),
    who: action({ owner: 'State', borrower: 'Forbidden', ops: 'State' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'declineBooking',
    doc: 'mutation($id: UUID!) { declineBooking(id: $id, input: { reason: "matrix" }) { id } }',
    vars: () => freshBooking('Pending'),
    who: action({ owner: 'ok', borrower: 'Forbidden', ops: 'ok' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'declineBooking (one already Approved)',
    doc: 'mutation($id: UUID!) { declineBooking(id: $id, input: { reason: "matrix" }) { id } }',
    vars: () => freshBooking('Approved'),
    who: action({ owner: 'State', borrower: 'Forbidden', ops: 'State' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'cancelBooking',
    doc: 'mutation($id: UUID!) { cancelBooking(id: $id, input: { reason: "matrix" }) { id } }',
    vars: () => freshBooking('Approved'),
    who: action({ owner: 'ok', borrower: 'ok', ops: 'ok' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'cancelBooking (a Pending one: the borrower only)',
    doc: 'mutation($id: UUID!) { cancelBooking(id: $id, input: { reason: "matrix" }) { id } }',
    vars: () => freshBooking('Pending'),
    who: action({ owner: 'State', borrower: 'ok', ops: 'State' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'useBooking',
    doc: 'mutation($id: UUID!) { useBooking(id: $id) { id } }',
    vars: usableBooking,
    who: action({ owner: 'Forbidden', borrower: 'ok', ops: 'Forbidden' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'useBooking (one still Pending)',
    doc: 'mutation($id: UUID!) { useBooking(id: $id) { id } }',
    vars: () => freshBooking('Pending'),
    who: action({ owner: 'Forbidden', borrower: 'State', ops: 'Forbidden' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'extendBooking',
    doc: 'mutation($id: UUID!, $end: DateTime!) { extendBooking(id: $id, input: { endDateUtc: $end }) { id } }',
    vars: async () => {
      const b = await freshBooking('Approved');
      return { id: b.id, end: iso(b.start + 3 * 3_600_000) };
    },
    who: action({ owner: 'Forbidden', borrower: 'ok', ops: 'Forbidden' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'extendBooking (one already Returned)',
    doc: 'mutation($id: UUID!, $end: DateTime!) { extendBooking(id: $id, input: { endDateUtc: $end }) { id } }',
    vars: async () => {
      const b = await freshBooking('Returned');
      return { id: b.id, end: iso(b.start + 3 * 3_600_000) };
    },
    who: action({ owner: 'Forbidden', borrower: 'State', ops: 'Forbidden' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'returnBooking',
    doc: 'mutation($id: UUID!) { returnBooking(id: $id) { id } }',
    vars: () => freshBooking('InUse'),
    who: action({ owner: 'ok', borrower: 'ok', ops: 'ok' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'returnBooking (one only Approved)',
    doc: 'mutation($id: UUID!) { returnBooking(id: $id) { id } }',
    vars: () => freshBooking('Approved'),
    who: action({ owner: 'State', borrower: 'State', ops: 'State' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'completeBooking',
    doc: 'mutation($id: UUID!) { completeBooking(id: $id) { id } }',
    vars: () => freshBooking('Returned'),
    who: action({ owner: 'ok', borrower: 'Forbidden', ops: 'ok' }),
    opsAsUser: 'NotFound',
  },
  {
    op: 'completeBooking (one still InUse)',
    doc: 'mutation($id: UUID!) { completeBooking(id: $id) { id } }',
    vars: () => freshBooking('InUse'),
    who: action({ owner: 'State', borrower: 'Forbidden', ops: 'State' }),
    opsAsUser: 'NotFound',
  },
  // lock and unlock (CONTRACT §7): idempotent, so one car of each kind serves every case
  {
    op: 'lockCar',
    doc: 'mutation($id: UUID!) { lockCar(id: $id) { id } }',
    vars: () => ({ id: f.idleCar }),
    who: idleLock,
    opsAsUser: 'Refused',
  },
  {
    op: 'unlockCar',
    doc: 'mutation($id: UUID!) { unlockCar(id: $id) { id } }',
    vars: () => ({ id: f.idleCar }),
    who: idleLock,
    opsAsUser: 'Refused',
  },
  {
    op: 'lockCar (while the borrower has it InUse)',
    doc: 'mutation($id: UUID!) { lockCar(id: $id) { id } }',
    vars: () => ({ id: f.busyCar }),
    who: busyLock,
    opsAsUser: 'Refused',
  },
  {
    op: 'unlockCar (while the borrower has it InUse)',
    doc: 'mutation($id: UUID!) { unlockCar(id: $id) { id } }',
    vars: () => ({ id: f.busyCar }),
    who: busyLock,
    opsAsUser: 'Refused',
  },
  // webhooks (CONTRACT §7, §8): `webhooks:*`; each caller manages their own subscriptions, ops see all
  {
    op: 'webhookSubscriptions',
    doc: '{ webhookSubscriptions { total } }',
    vars: () => ({}),
    who: { ...everyone({ any: ['webhooks:read'] }), ops: { any: [] }, app: { any: ['webhooks:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'webhookSubscription',
    doc: 'query($id: UUID!) { webhookSubscription(id: $id) { id } }',
    vars: freshSubscription,
    who: ownersHook('webhooks:read'),
    opsAsUser: 'Refused',
  },
  {
    op: 'createWebhookSubscriptions',
    doc: CREATE_HOOK,
    vars: () => ({ input: { name: 'Matrix hook', events: ['carbooking_approve'], config: { url: hook() } } }),
    who: { ...everyone({ any: ['webhooks:write'] }), ops: { any: [] }, app: { any: ['webhooks:write'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'updateWebhookSubscription',
    doc: 'mutation($id: UUID!) { updateWebhookSubscription(id: $id, input: { name: "Matrix hook 2" }) { id } }',
    vars: freshSubscription,
    who: ownersHook('webhooks:write'),
    opsAsUser: 'Refused',
  },
  {
    op: 'deleteWebhookSubscription',
    doc: 'mutation($id: UUID!) { deleteWebhookSubscription(id: $id) { id } }',
    vars: freshSubscription,
    who: ownersHook('webhooks:write'),
    opsAsUser: 'Refused',
  },
  {
    op: 'rotateWebhookSubscriptionSecret',
    doc: 'mutation($id: UUID!) { rotateWebhookSubscriptionSecret(id: $id) { id } }',
    vars: freshSubscription,
    who: ownersHook('webhooks:write'),
    opsAsUser: 'Refused',
  },
  {
    op: 'testWebhookSubscription',
    doc: 'mutation($id: UUID!) { testWebhookSubscription(id: $id) { id } }',
    vars: freshSubscription,
    who: ownersHook('webhooks:write'),
    opsAsUser: 'Refused',
  },
  {
    op: 'webhookDeliveries',
    doc: '{ webhookDeliveries { total } }',
    vars: () => ({}),
    who: { ...everyone({ any: ['webhooks:read'] }), ops: { any: [] }, app: { any: ['webhooks:read'] } },
    opsAsUser: 'ok',
  },
  {
    op: 'webhookDelivery',
    doc: 'query($id: String!) { webhookDelivery(id: $id) { id } }',
    vars: () => freshDelivery(),
    who: ownersHook('webhooks:read'),
    opsAsUser: 'Refused',
  },
  {
    op: 'redeliverWebhookDelivery',
    doc: 'mutation($id: String!) { redeliverWebhookDelivery(id: $id) { id } }',
    vars: () => freshDelivery(true),
    who: ownersHook('webhooks:write'),
    opsAsUser: 'Refused',
  },
];

interface Case {
  label: string;
  who: Who | 'anonymous';
  scopes: Scope[];
  expected: Outcome;
}

/** The rows for one operation: anonymous; each caller with each allowing scope alone, and with every other. */
function casesOf(spec: Spec): Case[] {
  const cases: Case[] = [
    { label: 'anonymous', who: 'anonymous', scopes: [], expected: spec.anonymous ?? 'Unauthorized' },
  ];
  for (const who of ['owner', 'borrower', 'stranger', 'ops', 'app'] as const) {
    const allowed = spec.who[who];
    if (who === 'ops') {
      cases.push({
        label: 'ops with only `ops`',
        who,
        scopes: ['ops'],
        expected: allowed ? (allowed.gets ?? 'ok') : 'Forbidden',
      });
      cases.push({
        label: 'ops without `ops`',
        who,
        scopes: without('ops'),
        expected: spec.opsAsUser ?? 'Forbidden',
      });
      continue;
    }
    if (!allowed) {
      cases.push({ label: `${who} with every scope`, who, scopes: without(), expected: 'Forbidden' });
      continue;
    }
    const gets = allowed.gets ?? 'ok';
    if (allowed.any.length === 0) {
      cases.push({ label: `${who} with an unrelated scope`, who, scopes: ['webhooks:read'], expected: gets });
      continue;
    }
    for (const scope of allowed.any)
      cases.push({ label: `${who} with only ${scope}`, who, scopes: [scope], expected: gets });
    cases.push({
      label: `${who} with every scope but ${allowed.any.join(', ')}`,
      who,
      scopes: without(...allowed.any),
      expected: allowed.lacking ?? 'Scope',
    });
  }
  return cases;
}

async function run(spec: Spec, c: Case) {
  const t = c.who === 'anonymous' ? undefined : await token(c.who, c.scopes);
  const r = await gql(s, t, spec.doc, await spec.vars());
  const e = r.errors?.[0];
  const code = e?.extensions?.code as string | undefined;
  const what = `${spec.op}: ${c.label} → ${code ?? 'ok'} ${e?.message ?? ''}`;
  switch (c.expected) {
    case 'ok':
      expect(r.errors, what).toBeUndefined();
      break;
    case 'Unauthorized':
      expect(code, what).toBe('Unauthorized');
      expect(r.status, what).toBe(401);
      expect(r.headers.get('www-authenticate'), what).toBe('Bearer realm="carshare"');
      break;
    case 'Scope':
      expect(code, what).toBe('Forbidden');
      expect(r.status, what).toBe(403);
      expect(r.headers.get('www-authenticate'), what).toMatch(/error="insufficient_scope"/);
      break;
    case 'Forbidden':
      expect(code, what).toBe('Forbidden');
      expect(e?.extensions?.meta?.reason, what).not.toBe('InsufficientScope');
      break;
    case 'NotFound':
      expect(code, what).toBe('NotFound');
      break;
    case 'State':
      expect(code, what).toBe('InvalidStateTransition');
      expect(e?.extensions?.meta?.state, what).toBeTypeOf('string');
      break;
    case 'Conflict':
      expect(code, what).toBe('Conflict');
      expect(e?.extensions?.meta?.reason, what).toBe('CarInUse');
      break;
    case 'Refused':
      expect(['NotFound', 'Forbidden'], what).toContain(code);
      expect(e?.extensions?.meta?.reason, what).not.toBe('InsufficientScope');
      break;
  }
}

describe.each(specs.map((spec) => [spec.op, spec] as const))('%s', (_op, spec) => {
  it.each(casesOf(spec).map((c) => [c.label, c.expected, c] as const))('%s → %s', async (_l, _e, c) => {
    await run(spec, c);
  });
});

it("covers every operation of the schema but the ping and the platform's", async () => {
  const names = new Set(specs.map((x) => x.op.split(' ')[0]));
  const d = await h.ok<any>(
    asOps(),
    '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }',
  );
  const all: string[] = [...d.__schema.queryType.fields, ...d.__schema.mutationType.fields].map(
    (x: { name: string }) => x.name,
  );
  // The platform's fields (CONTRACT §22) answer to the platform's callers, not to a car share's roles: every one is
  // checked for every kind of caller, on the default car share's host and the others, in
  // test/platform/platform-access.test.ts.
  const platform = [
    'carShares',
    'carShare',
    'platformAudit',
    'createCarShare',
    'updateCarShare',
    'suspendCarShare',
    'reactivateCarShare',
    'deleteCarShare',
    'addCarShareOperator',
  ];
  expect([...new Set(all.filter((n) => !names.has(n)))].sort()).toEqual(['_ping', ...platform].sort());
});
