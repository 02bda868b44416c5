// Verifications over GraphQL on real PostgreSQL: search and visibility, submit/verify/reject with their
// validation, permissions and events, expiry by the clock, evidence PII, and nothing recorded on rollback.
import { describe, expect, it } from 'vitest';
import { expireVerifications } from '../../src/verifications/verification.commands.js';
import { createUser, outbox, type TestUser } from '../factories/accounts.js';
import {
  carVerifications,
  operatorApproval,
  verificationId,
  verificationRow,
} from '../factories/verifications.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';
import { scoped } from '../support/scope.js';

const h = useHarness();

const FIELDS = `id subjectType subjectId kind status evidence expiresDateUtc decidedDateUtc decidedById reason
  createdDateUtc lastModifiedDateUtc`;
const SEARCH = `query($subjectType: SubjectType, $subjectId: UUID, $status: VerificationStatus,
  $kind: VerificationKind, $sort: String, $limit: Int, $offset: Int, $distinct: String) {
  verifications(subjectType: $subjectType, subjectId: $subjectId, status: $status, kind: $kind, sort: $sort,
    limit: $limit, offset: $offset, distinct: $distinct) {
    total limit offset sort { by direction } distinct nodes { id subjectId kind status } } }`;
const GET = `query($id: UUID!) { verification(id: $id) { ${FIELDS} } }`;
const SUBMIT = `mutation($id: UUID!, $input: SubmitVerificationInput!) {
  submitVerification(id: $id, input: $input) { ${FIELDS} } }`;
const VERIFY = `mutation($id: UUID!, $input: DecideVerificationInput) {
  verifyVerification(id: $id, input: $input) { ${FIELDS} } }`;
const REJECT = `mutation($id: UUID!, $input: DecideVerificationInput) {
  rejectVerification(id: $id, input: $input) { ${FIELDS} } }`;

type V = Record<string, any>;
const NOW = '2026-07-01T10:00:00.000Z';

/** verification_update events, oldest first. */
async function verificationEvents() {
  return (await outbox(h)).filter((e) => e.name === 'verification_update');
}

const validEvidence = {
  Email: { emailAddress: 'Ada@Example.com' },
  PhoneNumber: { phoneNumber: '+14155550123' },
  DriversLicense: { number: 'D1234567', jurisdiction: 'US-CA', expiresDateUtc: '2030-01-31T00:00:00Z' },
  LicensePlate: { jurisdiction: 'US-CA', number: '7ABC123' },
  RoadWorthiness: { certificateNumber: 'RW-99', expiresDateUtc: '2027-06-30T00:00:00.000+00:00' },
  OperatorApproval: { note: 'Met in person' },
} as const;

async function submit(actor: TestUser['actor'], id: string, evidence: unknown): Promise<V> {
  return (await h.ok<{ submitVerification: V }>(actor, SUBMIT, { id, input: { evidence } }))
    .submitVerification;
}

/** Submits valid evidence as the subject and verifies it as ops. */
async function verifyKind(u: TestUser, kind: keyof typeof validEvidence): Promise<string> {
  const id = await verificationId(h, u.id, kind);
  await submit(u.actor, id, validEvidence[kind]);
  await h.ok(asOps(), VERIFY, { id });
  return id;
}

describe('verifications search', () => {
  it('shows a user only their own records (and their cars’); ops and verifications:read apps see all', async () => {
    const a = await createUser(h);
    const b = await createUser(h);
    const carId = await carVerifications(h, a.id);
    const own = await h.ok<{ verifications: V }>(a.actor, SEARCH);
    expect(own.verifications.total).toBe(5);
    expect(new Set(own.verifications.nodes.map((n: V) => n.subjectId))).toEqual(new Set([a.id, carId]));
    // Naming someone else's subject does not leak it.
    const peek = await h.ok<{ verifications: V }>(a.actor, SEARCH, { subjectId: b.id });
    expect(peek.verifications).toMatchObject({ total: 0, nodes: [] });
    for (const actor of [asOps(), asClient(['verifications:read'])]) {
      const all = await h.ok<{ verifications: V }>(actor, SEARCH);
      expect(all.verifications.total).toBe(8);
    }
  });

  it('filters by subjectType, subjectId, status and kind', async () => {
    const a = await createUser(h);
    const b = await createUser(h);
    const carId = await carVerifications(h, a.id);
    await submit(a.actor, await verificationId(h, a.id, 'Email'), validEvidence.Email);
    const ops = asOps();
    const q = async (vars: Record<string, unknown>) =>
      (await h.ok<{ verifications: V }>(ops, SEARCH, vars)).verifications;
    expect((await q({ subjectType: 'Car' })).nodes.map((n: V) => n.subjectId)).toEqual([carId, carId]);
    expect((await q({ subjectId: b.id })).total).toBe(3);
    expect((await q({ status: 'Pending' })).nodes).toEqual([
      expect.objectContaining({ subjectId: a.id, kind: 'Email', status: 'Pending' }),
    ]);
    expect((await q({ kind: 'DriversLicense' })).total).toBe(2);
    expect((await q({ subjectType: 'UserAccount', subjectId: a.id, status: 'Unverified' })).total).toBe(2);
  });

  it('sorts (any case, either direction), pages and echoes what it applied; distinct counts values', async () => {
    const a = await createUser(h);
    const d = await h.ok<{ verifications: V }>(a.actor, SEARCH, { sort: '-KIND', limit: 2, offset: 1 });
    expect(d.verifications).toEqual({
      total: 3,
      limit: 2,
      offset: 1,
      sort: { by: 'kind', direction: 'Descending' },
      distinct: null,
      nodes: [
        expect.objectContaining({ kind: 'Email' }),
        expect.objectContaining({ kind: 'DriversLicense' }),
      ],
    });
    const byDefault = await h.ok<{ verifications: V }>(a.actor, SEARCH);
    expect(byDefault.verifications).toMatchObject({
      limit: 100,
      offset: 0,
      sort: { by: 'createdDateUtc', direction: 'Descending' },
    });
    const past = await h.ok<{ verifications: V }>(a.actor, SEARCH, { offset: 50 });
    expect(past.verifications).toMatchObject({ total: 3, nodes: [] });
    await submit(a.actor, await verificationId(h, a.id, 'Email'), validEvidence.Email);
    const distinct = await h.ok<{ verifications: V }>(a.actor, SEARCH, {
      distinct: 'Status',
      sort: 'status',
    });
    expect(distinct.verifications.total).toBe(2);
    expect(distinct.verifications.distinct).toBe('status');
    expect(distinct.verifications.nodes.map((n: V) => n.status)).toEqual(['Pending', 'Unverified']);
  });

  it.each([
    ['sort', { sort: 'evidence' }, 'InvalidValue'],
    ['limit', { limit: 0 }, 'OutOfRange'],
    ['limit', { limit: 1001 }, 'OutOfRange'],
    ['offset', { offset: -1 }, 'OutOfRange'],
    ['distinct', { distinct: 'nope' }, 'InvalidValue'],
  ])('refuses a bad %s with %s naming it', async (field, vars, code) => {
    expect(errorOf(await h.run(asOps(), SEARCH, vars))).toMatchObject({ code, field });
  });

  it('refuses anonymous callers (Unauthorized) and tokens without a reading scope (Forbidden)', async () => {
    const a = await createUser(h);
    expect(errorOf(await h.run(anonymous, SEARCH)).code).toBe('Unauthorized');
    const noRead = asUser(a.id, scopesWithout('account:read', 'verifications:read'));
    expect(errorOf(await h.run(noRead, SEARCH)).code).toBe('Forbidden');
    expect(errorOf(await h.run(asClient(['verifications:write', 'users:read']), SEARCH)).code).toBe(
      'Forbidden',
    );
    // Either reading scope is enough for the subject.
    expect((await h.run(asUser(a.id, ['verifications:read']), SEARCH)).errors).toBeUndefined();
  });
});

describe('verification by id', () => {
  it('shows the subject their record; a stranger gets NotFound; ops and verifications:read apps see it', async () => {
    const a = await createUser(h);
    const b = await createUser(h);
    const id = await verificationId(h, a.id, 'Email');
    const mine = await h.ok<{ verification: V }>(a.actor, GET, { id });
    expect(mine.verification).toMatchObject({
      id,
      subjectType: 'UserAccount',
      subjectId: a.id,
      kind: 'Email',
      status: 'Unverified',
      evidence: null,
      createdDateUtc: NOW,
    });
    expect(errorOf(await h.run(b.actor, GET, { id })).code).toBe('NotFound');
    for (const actor of [asOps(), asClient(['verifications:read'])])
      expect((await h.ok<{ verification: V }>(actor, GET, { id })).verification.id).toBe(id);
    const unknown = await h.run(asOps(), GET, { id: '00000000-0000-4000-8000-000000000000' });
    expect(errorOf(unknown).code).toBe('NotFound');
    expect(errorOf(await h.run(anonymous, GET, { id })).code).toBe('Unauthorized');
  });

  it('a car’s records are its owner’s to see', async () => {
    const owner = await createUser(h);
    const other = await createUser(h);
    const carId = await carVerifications(h, owner.id);
    const id = await verificationId(h, carId, 'LicensePlate');
    expect((await h.ok<{ verification: V }>(owner.actor, GET, { id })).verification.subjectType).toBe('Car');
    expect(errorOf(await h.run(other.actor, GET, { id })).code).toBe('NotFound');
  });
});

describe('submitVerification', () => {
  it.each([
    ['Email', { emailAddress: 'ada@example.com' }, null],
    ['PhoneNumber', { phoneNumber: '+14155550123' }, null],
    [
      'DriversLicense',
      { number: 'D1234567', jurisdiction: 'US-CA', expiresDateUtc: '2030-01-31T00:00:00.000Z' },
      '2030-01-31T00:00:00.000Z',
    ],
  ] as const)('the subject submits %s evidence: → Pending, event recorded', async (kind, stored, expires) => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, kind);
    h.clock.advance(60_000);
    const v = await submit(u.actor, id, validEvidence[kind]);
    expect(v).toMatchObject({
      id,
      kind,
      status: 'Pending',
      evidence: stored,
      expiresDateUtc: expires,
      decidedDateUtc: null,
      decidedById: null,
      reason: null,
      createdDateUtc: NOW,
      lastModifiedDateUtc: '2026-07-01T10:01:00.000Z',
    });
    expect(await verificationEvents()).toEqual([
      {
        name: 'verification_update',
        payload: {
          Name: 'verification_update',
          OccurredDateUtc: '2026-07-01T10:01:00.000Z',
          Id: id,
          SubjectType: 'UserAccount',
          SubjectId: u.id,
          Kind: kind,
          Status: 'Pending',
        },
        audience_user_ids: [u.id],
      },
    ]);
  });

  it.each([
    ['LicensePlate', { jurisdiction: 'US-CA', number: '7ABC123' }, null],
    [
      'RoadWorthiness',
      { certificateNumber: 'RW-99', expiresDateUtc: '2027-06-30T00:00:00.000Z' },
      '2027-06-30T00:00:00.000Z',
    ],
  ] as const)('the car’s owner submits %s evidence with cars:write', async (kind, stored, expires) => {
    const owner = await createUser(h);
    const carId = await carVerifications(h, owner.id);
    const id = await verificationId(h, carId, kind);
    const v = await submit(asUser(owner.id, ['cars:write', 'cars:read']), id, validEvidence[kind]);
    expect(v).toMatchObject({ status: 'Pending', evidence: stored, expiresDateUtc: expires });
    const [ev] = await verificationEvents();
    expect(ev!.payload).toEqual({
      Name: 'verification_update',
      OccurredDateUtc: NOW,
      Id: id,
      SubjectType: 'Car',
      SubjectId: carId,
      Kind: kind,
      Status: 'Pending',
    });
    expect(ev!.audience_user_ids).toEqual([owner.id]);
  });

  it('OperatorApproval takes an optional note', async () => {
    const u = await createUser(h);
    const id = await operatorApproval(h, u.id);
    expect((await submit(u.actor, id, validEvidence.OperatorApproval)).evidence).toEqual({
      note: 'Met in person',
    });
    expect((await submit(u.actor, id, null)).evidence).toEqual({});
  });

  it('matches evidence keys in any casing, with _ and - ignored; unknown keys are dropped', async () => {
    const u = await createUser(h);
    const dl = await verificationId(h, u.id, 'DriversLicense');
    const v = await submit(u.actor, dl, {
      NUMBER: ' D1 ',
      Jurisdiction: 'US-NY',
      'expires-date-utc': '2031-02-03T04:05:06Z',
      colour: 'blue',
    });
    expect(v.evidence).toEqual({
      number: 'D1',
      jurisdiction: 'US-NY',
      expiresDateUtc: '2031-02-03T04:05:06.000Z',
    });
    const email = await verificationId(h, u.id, 'Email');
    expect((await submit(u.actor, email, { email_address: 'X@Y.org' })).evidence).toEqual({
      emailAddress: 'x@y.org',
    });
  });

  it.each([
    ['Email', {}, 'evidence.emailAddress', 'NotEmpty'],
    ['Email', { emailAddress: 'not-an-address' }, 'evidence.emailAddress', 'InvalidFormat'],
    ['Email', { emailAddress: 42 }, 'evidence.emailAddress', 'InvalidFormat'],
    ['PhoneNumber', { phoneNumber: '0123 456' }, 'evidence.phoneNumber', 'InvalidFormat'],
    ['PhoneNumber', { phoneNumber: '  ' }, 'evidence.phoneNumber', 'NotEmpty'],
    [
      'DriversLicense',
      { jurisdiction: 'US-CA', expiresDateUtc: '2030-01-01T00:00:00Z' },
      'evidence.number',
      'NotEmpty',
    ],
    [
      'DriversLicense',
      { number: 'D1', jurisdiction: 'x'.repeat(101), expiresDateUtc: '2030-01-01T00:00:00Z' },
      'evidence.jurisdiction',
      'TooLong',
    ],
    [
      'DriversLicense',
      { number: 'D1', jurisdiction: 'US-CA', expiresDateUtc: '2026-06-30T00:00:00Z' },
      'evidence.expiresDateUtc',
      'OutOfRange',
    ],
    [
      'DriversLicense',
      { number: 'D1', jurisdiction: 'US-CA', expiresDateUtc: '2030-01-01T00:00:00+02:00' },
      'evidence.expiresDateUtc',
      'InvalidFormat',
    ],
    [
      'DriversLicense',
      { number: 'D1', jurisdiction: 'US-CA', expiresDateUtc: '2030-13-45T00:00:00Z' },
      'evidence.expiresDateUtc',
      'InvalidFormat',
    ],
    ['Email', 'ada@example.com', 'evidence', 'NotEmpty'],
    ['Email', null, 'evidence', 'NotEmpty'],
  ] as const)(
    '%s evidence %j is refused naming %s (%s); nothing changes or is recorded',
    async (kind, evidence, field, code) => {
      const u = await createUser(h);
      const id = await verificationId(h, u.id, kind);
      expect(errorOf(await h.run(u.actor, SUBMIT, { id, input: { evidence } }))).toMatchObject({
        code,
        field,
      });
      expect(await verificationRow(h, id)).toEqual({ status: 'Unverified', evidence: null });
      expect(await verificationEvents()).toHaveLength(0);
    },
  );

  it.each([
    ['LicensePlate', { jurisdiction: 'US-CA' }, 'evidence.number', 'NotEmpty'],
    ['RoadWorthiness', { certificateNumber: 'RW-1' }, 'evidence.expiresDateUtc', 'NotEmpty'],
    [
      'RoadWorthiness',
      { certificateNumber: '', expiresDateUtc: '2027-01-01T00:00:00Z' },
      'evidence.certificateNumber',
      'NotEmpty',
    ],
  ] as const)('car %s evidence %j is refused naming %s', async (kind, evidence, field, code) => {
    const owner = await createUser(h);
    const id = await verificationId(h, await carVerifications(h, owner.id), kind);
    expect(errorOf(await h.run(owner.actor, SUBMIT, { id, input: { evidence } }))).toMatchObject({
      code,
      field,
    });
  });

  it('refuses an OperatorApproval note over 1000 characters', async () => {
    const u = await createUser(h);
    const id = await operatorApproval(h, u.id);
    const r = await h.run(u.actor, SUBMIT, { id, input: { evidence: { Note: 'x'.repeat(1001) } } });
    expect(errorOf(r)).toMatchObject({ code: 'TooLong', field: 'evidence.note' });
  });

  it('names every invalid evidence field at once', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'DriversLicense');
    const r = await h.run(u.actor, SUBMIT, { id, input: { evidence: { jurisdiction: 'US' } } });
    expect(r.errors?.[0]?.extensions?.errors?.map((e) => e.field)).toEqual([
      'evidence.number',
      'evidence.expiresDateUtc',
    ]);
  });

  it('may resubmit while Pending or after Rejected/Expired, but not once Verified (409 with State)', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'Email');
    await submit(u.actor, id, { emailAddress: 'a@example.com' });
    expect((await submit(u.actor, id, { emailAddress: 'b@example.com' })).evidence).toEqual({
      emailAddress: 'b@example.com',
    });
    await h.ok(asOps(), REJECT, { id, input: { reason: 'Bounced' } });
    const again = await submit(u.actor, id, { emailAddress: 'c@example.com' });
    // A new submission clears the previous decision.
    expect(again).toMatchObject({ status: 'Pending', reason: null, decidedById: null, decidedDateUtc: null });
    await h.ok(asOps(), VERIFY, { id });
    const r = await h.run(u.actor, SUBMIT, { id, input: { evidence: { emailAddress: 'd@example.com' } } });
    expect(r.errors?.[0]?.extensions).toMatchObject({
      code: 'InvalidStateTransition',
      meta: { state: 'Verified' },
    });
    expect(await verificationRow(h, id)).toMatchObject({
      status: 'Verified',
      evidence: { emailAddress: 'c@example.com' },
    });
  });

  it('is the subject’s alone: strangers get NotFound; ops and apps Forbidden; anonymous Unauthorized', async () => {
    const u = await createUser(h);
    const stranger = await createUser(h);
    const id = await verificationId(h, u.id, 'Email');
    const vars = { id, input: { evidence: validEvidence.Email } };
    expect(errorOf(await h.run(stranger.actor, SUBMIT, vars)).code).toBe('NotFound');
    expect(errorOf(await h.run(asOps(), SUBMIT, vars)).code).toBe('Forbidden');
    expect(errorOf(await h.run(asClient(['verifications:write', 'users:write']), SUBMIT, vars)).code).toBe(
      'Forbidden',
    );
    expect(errorOf(await h.run(anonymous, SUBMIT, vars)).code).toBe('Unauthorized');
    const unknown = { ...vars, id: '00000000-0000-4000-8000-000000000000' };
    expect(errorOf(await h.run(u.actor, SUBMIT, unknown)).code).toBe('NotFound');
    expect(await verificationEvents()).toHaveLength(0);
  });

  it('needs account:write for the user’s own records and cars:write for a car’s', async () => {
    const u = await createUser(h);
    const carId = await carVerifications(h, u.id);
    const own = await verificationId(h, u.id, 'Email');
    const plate = await verificationId(h, carId, 'LicensePlate');
    const carsOnly = asUser(u.id, ['cars:write', 'account:read']);
    const accountOnly = asUser(u.id, ['account:write', 'account:read']);
    const r1 = await h.run(carsOnly, SUBMIT, { id: own, input: { evidence: validEvidence.Email } });
    expect(r1.errors?.[0]?.extensions).toMatchObject({
      code: 'Forbidden',
      meta: { requiredScopes: ['account:write'] },
    });
    const r2 = await h.run(accountOnly, SUBMIT, {
      id: plate,
      input: { evidence: validEvidence.LicensePlate },
    });
    expect(r2.errors?.[0]?.extensions).toMatchObject({
      code: 'Forbidden',
      meta: { requiredScopes: ['cars:write'] },
    });
    const neither = asUser(u.id, scopesWithout('account:write', 'cars:write'));
    expect(
      errorOf(await h.run(neither, SUBMIT, { id: own, input: { evidence: validEvidence.Email } })).code,
    ).toBe('Forbidden');
    expect(await verificationEvents()).toHaveLength(0);
    expect((await submit(accountOnly, own, validEvidence.Email)).status).toBe('Pending');
    expect((await submit(carsOnly, plate, validEvidence.LicensePlate)).status).toBe('Pending');
  });
});

describe('verifyVerification and rejectVerification', () => {
  it('ops verify a Pending record: decision recorded, event raised', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'PhoneNumber');
    await submit(u.actor, id, validEvidence.PhoneNumber);
    const ops = asOps();
    h.clock.advance(3_600_000);
    const v = (await h.ok<{ verifyVerification: V }>(ops, VERIFY, { id, input: { reason: 'Called back' } }))
      .verifyVerification;
    expect(v).toMatchObject({
      status: 'Verified',
      decidedById: ops.id,
      decidedDateUtc: '2026-07-01T11:00:00.000Z',
      reason: 'Called back',
      lastModifiedDateUtc: '2026-07-01T11:00:00.000Z',
    });
    const events = await verificationEvents();
    expect(events.map((e) => e.payload.Status)).toEqual(['Pending', 'Verified']);
    expect(events[1]).toEqual({
      name: 'verification_update',
      payload: {
        Name: 'verification_update',
        OccurredDateUtc: '2026-07-01T11:00:00.000Z',
        Id: id,
        SubjectType: 'UserAccount',
        SubjectId: u.id,
        Kind: 'PhoneNumber',
        Status: 'Verified',
      },
      audience_user_ids: [u.id],
    });
  });

  it('a client application with verifications:write decides too (verify without a reason, reject with one)', async () => {
    const u = await createUser(h);
    const email = await verificationId(h, u.id, 'Email');
    const phone = await verificationId(h, u.id, 'PhoneNumber');
    await submit(u.actor, email, validEvidence.Email);
    await submit(u.actor, phone, validEvidence.PhoneNumber);
    const app = asClient(['verifications:write']);
    const ok = (await h.ok<{ verifyVerification: V }>(app, VERIFY, { id: email })).verifyVerification;
    expect(ok).toMatchObject({ status: 'Verified', decidedById: app.id, reason: null });
    const no = (
      await h.ok<{ rejectVerification: V }>(app, REJECT, { id: phone, input: { reason: 'No answer' } })
    ).rejectVerification;
    expect(no).toMatchObject({
      status: 'Rejected',
      decidedById: app.id,
      reason: 'No answer',
      decidedDateUtc: NOW,
    });
    const last = (await verificationEvents()).at(-1)!;
    expect(last.payload).toEqual({
      Name: 'verification_update',
      OccurredDateUtc: NOW,
      Id: phone,
      SubjectType: 'UserAccount',
      SubjectId: u.id,
      Kind: 'PhoneNumber',
      Status: 'Rejected',
    });
  });

  it.each([
    ['Unverified', null],
    ['Verified', VERIFY],
    ['Rejected', REJECT],
  ] as const)(
    'refuses to decide a %s record: 409 InvalidStateTransition with State',
    async (state, decision) => {
      const u = await createUser(h);
      const id = await verificationId(h, u.id, 'Email');
      if (state !== 'Unverified') await submit(u.actor, id, validEvidence.Email);
      if (decision) await h.ok(asOps(), decision, { id });
      const before = (await verificationEvents()).length;
      for (const q of [VERIFY, REJECT]) {
        const r = await h.run(asOps(), q, { id });
        expect(r.errors?.[0]?.extensions).toMatchObject({
          code: 'InvalidStateTransition',
          meta: { state: state },
        });
      }
      expect(await verificationRow(h, id)).toMatchObject({ status: state });
      expect(await verificationEvents()).toHaveLength(before);
    },
  );

  it('refuses to decide an Expired record', async () => {
    const u = await createUser(h);
    const id = await verifyKind(u, 'DriversLicense');
    h.clock.set('2030-02-01T00:00:00.000Z');
    await scoped(h.orm).transactional((em) => expireVerifications({ em, clock: h.clock }));
    const r = await h.run(asOps(), REJECT, { id });
    expect(r.errors?.[0]?.extensions).toMatchObject({
      code: 'InvalidStateTransition',
      meta: { state: 'Expired' },
    });
  });

  it('a record whose evidence expired while Pending becomes Expired, not Verified', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'DriversLicense');
    await submit(u.actor, id, validEvidence.DriversLicense);
    h.clock.set('2030-02-01T00:00:00.000Z');
    const v = (await h.ok<{ verifyVerification: V }>(asOps(), VERIFY, { id })).verifyVerification;
    expect(v.status).toBe('Expired');
    expect((await verificationEvents()).at(-1)!.payload.Status).toBe('Expired');
  });

  it('takes a reason of up to 1000 characters; a longer one is TooLong naming reason, nothing recorded', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'Email');
    await submit(u.actor, id, validEvidence.Email);
    for (const q of [VERIFY, REJECT]) {
      const r = await h.run(asOps(), q, { id, input: { reason: 'x'.repeat(1001) } });
      expect(errorOf(r)).toMatchObject({ code: 'TooLong', field: 'reason' });
    }
    expect(await verificationRow(h, id)).toMatchObject({ status: 'Pending' });
    expect(await verificationEvents()).toHaveLength(1);
    const max = 'y'.repeat(1000);
    const v = (await h.ok<{ rejectVerification: V }>(asOps(), REJECT, { id, input: { reason: max } }))
      .rejectVerification;
    expect(v.reason).toBe(max);
  });

  it('only ops and verifications:write apps decide: users Forbidden (even the subject), anonymous Unauthorized', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'Email');
    await submit(u.actor, id, validEvidence.Email);
    for (const q of [VERIFY, REJECT]) {
      expect(errorOf(await h.run(u.actor, q, { id })).code).toBe('Forbidden');
      // A person with the ops role but without the ops scope acts as a plain user.
      const opsWithoutScope = { ...asOps(), scopes: scopesWithout('ops') };
      expect(errorOf(await h.run(opsWithoutScope, q, { id })).code).toBe('Forbidden');
      expect(errorOf(await h.run(asClient(['verifications:read', 'users:write']), q, { id })).code).toBe(
        'Forbidden',
      );
      expect(errorOf(await h.run(anonymous, q, { id })).code).toBe('Unauthorized');
    }
    const unknown = await h.run(asOps(), VERIFY, { id: '00000000-0000-4000-8000-000000000000' });
    expect(errorOf(unknown).code).toBe('NotFound');
    expect(await verificationRow(h, id)).toMatchObject({ status: 'Pending' });
    expect(await verificationEvents()).toHaveLength(1);
  });
});

describe('expireVerifications', () => {
  it('turns Verified records whose expiry passed into Expired, recording an event for each', async () => {
    const u = await createUser(h);
    const owner = await createUser(h);
    const carId = await carVerifications(h, owner.id);
    const dl = await verifyKind(u, 'DriversLicense'); // expires 2030-01-31
    const email = await verifyKind(u, 'Email'); // never expires
    const rwId = await verificationId(h, carId, 'RoadWorthiness');
    await submit(owner.actor, rwId, validEvidence.RoadWorthiness); // expires 2027-06-30, stays Pending
    const sweep = () => scoped(h.orm).transactional((em) => expireVerifications({ em, clock: h.clock }));

    h.clock.set('2030-01-30T23:59:59.000Z');
    expect(await sweep()).toBe(0);
    const before = (await verificationEvents()).length;

    h.clock.set('2030-01-31T00:00:00.000Z');
    expect(await sweep()).toBe(1);
    expect(await verificationRow(h, dl)).toMatchObject({ status: 'Expired' });
    expect(await verificationRow(h, email)).toMatchObject({ status: 'Verified' });
    expect(await verificationRow(h, rwId)).toMatchObject({ status: 'Pending' });
    const events = (await verificationEvents()).slice(before);
    expect(events).toEqual([
      {
        name: 'verification_update',
        payload: {
          Name: 'verification_update',
          OccurredDateUtc: '2030-01-31T00:00:00.000Z',
          Id: dl,
          SubjectType: 'UserAccount',
          SubjectId: u.id,
          Kind: 'DriversLicense',
          Status: 'Expired',
        },
        audience_user_ids: [u.id],
      },
    ]);
    const v = (await h.ok<{ verification: V }>(u.actor, GET, { id: dl })).verification;
    expect(v).toMatchObject({ status: 'Expired', lastModifiedDateUtc: '2030-01-31T00:00:00.000Z' });
    // Already Expired: a second sweep changes nothing.
    expect(await sweep()).toBe(0);
    expect(await verificationEvents()).toHaveLength(before + 1);
  });

  it('records nothing when its transaction rolls back', async () => {
    const u = await createUser(h);
    const dl = await verifyKind(u, 'DriversLicense');
    const before = (await verificationEvents()).length;
    h.clock.set('2030-02-01T00:00:00.000Z');
    await expect(
      scoped(h.orm).transactional(async (em) => {
        await expireVerifications({ em, clock: h.clock });
        await em.flush();
        throw new Error('the sweep’s transaction fails after its change');
      }),
    ).rejects.toThrow('fails after its change');
    expect(await verificationRow(h, dl)).toMatchObject({ status: 'Verified' });
    expect(await verificationEvents()).toHaveLength(before);
  });
});

describe('evidence is PII', () => {
  it('is shown to the subject, ops and users:read apps; null to apps with only verifications:read', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'PhoneNumber');
    await submit(u.actor, id, validEvidence.PhoneNumber);
    const shown = { phoneNumber: '+14155550123' };
    const evidenceFor = async (actor: TestUser['actor']) =>
      (await h.ok<{ verification: V }>(actor, GET, { id })).verification.evidence;
    expect(await evidenceFor(u.actor)).toEqual(shown);
    expect(await evidenceFor(asOps())).toEqual(shown);
    expect(await evidenceFor(asClient(['verifications:read', 'users:read']))).toEqual(shown);
    expect(await evidenceFor(asClient(['verifications:read']))).toBeNull();
    expect(await evidenceFor(asClient(['verifications:read', 'verifications:write']))).toBeNull();
    // The same rule in a search.
    const list = await h.ok<{ verifications: V }>(
      asClient(['verifications:read']),
      `{ verifications(kind: PhoneNumber) { nodes { evidence status } } }`,
    );
    expect(list.verifications.nodes).toEqual([{ evidence: null, status: 'Pending' }]);
  });

  it('a decider without users:read sees the status but not the evidence in its answer', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'Email');
    await submit(u.actor, id, validEvidence.Email);
    const v = (await h.ok<{ verifyVerification: V }>(asClient(['verifications:write']), VERIFY, { id }))
      .verifyVerification;
    expect(v).toMatchObject({ status: 'Verified', evidence: null });
  });
});

describe('UserAccount.isVerifiedBorrower', () => {
  const ME = '{ me { isVerifiedBorrower verifications { kind status } } }';

  it('flips to true when Email, PhoneNumber and DriversLicense are all Verified, and back when one expires', async () => {
    const u = await createUser(h);
    const flag = async () => (await h.ok<{ me: V }>(u.actor, ME)).me.isVerifiedBorrower;
    expect(await flag()).toBe(false);
    await verifyKind(u, 'Email');
    await verifyKind(u, 'PhoneNumber');
    expect(await flag()).toBe(false);
    // Pending is not enough.
    await submit(u.actor, await verificationId(h, u.id, 'DriversLicense'), validEvidence.DriversLicense);
    expect(await flag()).toBe(false);
    await h.ok(asOps(), VERIFY, { id: await verificationId(h, u.id, 'DriversLicense') });
    expect(await flag()).toBe(true);
    h.clock.set('2030-02-01T00:00:00.000Z');
    await scoped(h.orm).transactional((em) => expireVerifications({ em, clock: h.clock }));
    expect(await flag()).toBe(false);
  });

  it('an OperatorApproval is not required, and a Verified car does not make its owner a borrower', async () => {
    const u = await createUser(h);
    const carId = await carVerifications(h, u.id);
    for (const kind of ['LicensePlate', 'RoadWorthiness'] as const) {
      const id = await verificationId(h, carId, kind);
      await submit(u.actor, id, validEvidence[kind]);
      await h.ok(asOps(), VERIFY, { id });
    }
    await operatorApproval(h, u.id);
    expect((await h.ok<{ me: V }>(u.actor, ME)).me.isVerifiedBorrower).toBe(false);
    for (const kind of ['Email', 'PhoneNumber', 'DriversLicense'] as const) await verifyKind(u, kind);
    expect((await h.ok<{ me: V }>(u.actor, ME)).me.isVerifiedBorrower).toBe(true);
  });
});

describe('resetting a verification when the subject changes', () => {
  it('a new phone number resets a Verified PhoneNumber to Unverified, with its event', async () => {
    const u = await createUser(h, { phoneNumber: '+14155550123' });
    const id = await verifyKind(u, 'PhoneNumber');
    h.clock.advance(1000);
    await h.ok(
      u.actor,
      'mutation($id: UUID!) { updateProfile(id: $id, input: { phoneNumber: "+14155550999" }) { id } }',
      {
        id: u.profileId,
      },
    );
    expect(await verificationRow(h, id)).toEqual({ status: 'Unverified', evidence: null });
    expect((await verificationEvents()).at(-1)!.payload).toEqual({
      Name: 'verification_update',
      OccurredDateUtc: '2026-07-01T10:00:01.000Z',
      Id: id,
      SubjectType: 'UserAccount',
      SubjectId: u.id,
      Kind: 'PhoneNumber',
      Status: 'Unverified',
    });
  });
});

describe('events and rollback', () => {
  it('a mutation whose transaction fails after the change records no event and changes nothing', async () => {
    const u = await createUser(h);
    const id = await verificationId(h, u.id, 'Email');
    const conn = h.orm.em.fork().getConnection();
    // A database rule that refuses one particular change at write time: the command has already changed the
    // record and recorded its event by then, so only a rollback can keep the outbox clean.
    await conn.execute(`create or replace function refuse_boom() returns trigger language plpgsql as $$
      begin
        if new.evidence->>'emailAddress' = 'boom@example.com' then raise exception 'refused for the test'; end if;
        return new;
      end $$`);
    await conn.execute(
      'create trigger refuse_boom before update on verification for each row execute function refuse_boom()',
    );
    try {
      const r = await h.run(u.actor, SUBMIT, {
        id,
        input: { evidence: { emailAddress: 'boom@example.com' } },
      });
      expect(errorOf(r).code).toBe('InternalServerError');
      expect(await verificationRow(h, id)).toEqual({ status: 'Unverified', evidence: null });
      expect(await verificationEvents()).toHaveLength(0);
      // The same mutation with acceptable evidence commits both the change and its event.
      await submit(u.actor, id, { emailAddress: 'fine@example.com' });
      expect(await verificationEvents()).toHaveLength(1);
    } finally {
      await conn.execute('drop trigger if exists refuse_boom on verification');
      await conn.execute('drop function if exists refuse_boom()');
    }
  });
});
