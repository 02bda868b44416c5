// Suspending and reactivating a car share (CONTRACT §22, §23): the commands the platform API calls and the admin
// command line's `suspend-car-share` / `reactivate-car-share`. Each checks the state it starts from, leaves an entry
// in the car share's own audit trail (no ActorId), and refuses the default car share.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createUserFromCli } from '../../src/accounts/user-account.cli.js';
import { reactivateCarShare, suspendCarShare } from '../../src/carshares/car-share.lifecycle.js';
import { systemClock } from '../../src/shared/clock.js';
import { sweepVerificationExpiry } from '../../src/verifications/verification.expiry.js';
import { startTwoCarShares, type TwoCarShares } from '../oauth/two-car-shares.js';
import { npmRun } from '../support/command.js';

let t: TwoCarShares;
beforeAll(async () => {
  t = await startTwoCarShares();
});
afterAll(async () => t?.close());

const orm = () => t.s.service.db.orm;
const PLATFORM = { actorType: 'Platform' } as const;

/** B's audit trail, as its operator reads it (GET /api/audit), newest first: the same page each time. */
async function trailOfB(): Promise<
  { ActorType: string; ActorId?: string; Action: string; SubjectType: string }[]
> {
  const token = await t.opsToken('B', 'ops');
  const r = await t.B.fetch('/api/audit?subjecttype=CarShare', {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { AuditEntries: never[] }).AuditEntries;
}

describe('suspendCarShare and reactivateCarShare', () => {
  it('let time go on while suspended (CONTRACT §23): a verification due to expire expires, its event kept for later', async () => {
    const made = await createUserFromCli(
      t.s.service.db,
      ['--username', `timers.${randomUUID()}@example.com`, '--password', 'a long and unusual passphrase'],
      { id: t.bId, isDefault: false },
    );
    const [v] = await t.sql<{ id: string }>(
      'select id from verification where car_share_id = ? and subject_id = ? order by kind limit 1',
      [t.bId, made.Id],
    );
    await t.sql(
      `update verification set status = 'Verified', expires_date_utc = ? where car_share_id = ? and id = ?`,
      [new Date(Date.now() - 60_000), t.bId, v!.id],
    );
    await suspendCarShare(orm(), t.bId, 'Time goes on', PLATFORM, new Date());
    try {
      // The sweep every instance runs, as it runs it: suspended car shares are not passed over.
      expect(await sweepVerificationExpiry(orm(), systemClock)).toBeGreaterThanOrEqual(1);
      const [after] = await t.sql<{ status: string }>(
        'select status from verification where car_share_id = ? and id = ?',
        [t.bId, v!.id],
      );
      expect(after!.status).toBe('Expired');
      // Its event is recorded now, for the deliveries that wait until reactivation (test/webhooks/suspension).
      const [events] = await t.sql<{ n: number }>(
        `select count(*)::int as n from outbox_event
          where car_share_id = ? and name = 'verification_update' and payload::text like ?`,
        [t.bId, `%${v!.id}%`],
      );
      expect(events!.n).toBe(1);
    } finally {
      await reactivateCarShare(orm(), t.bId, PLATFORM, new Date());
    }
  });

  it('change the state, refuse the wrong one with InvalidStateTransition, and write the car share’s own trail', async () => {
    const suspended = await suspendCarShare(orm(), t.bId, '  Unpaid invoice  ', PLATFORM, new Date());
    expect(suspended).toMatchObject({ id: t.bId, status: 'Suspended', suspendedReason: 'Unpaid invoice' });
    expect(suspended.suspendedDateUtc).toBeInstanceOf(Date);
    await expect(suspendCarShare(orm(), t.bId, null, PLATFORM, new Date())).rejects.toMatchObject({
      code: 'InvalidStateTransition',
    });

    const active = await reactivateCarShare(orm(), t.bId, PLATFORM, new Date());
    expect(active).toMatchObject({
      id: t.bId,
      status: 'Active',
      suspendedReason: null,
      suspendedDateUtc: null,
    });
    await expect(reactivateCarShare(orm(), t.bId, PLATFORM, new Date())).rejects.toMatchObject({
      code: 'InvalidStateTransition',
    });

    const trail = await trailOfB();
    expect(trail.slice(0, 2).map((e) => [e.Action, e.ActorType, e.SubjectType, e.ActorId ?? null])).toEqual([
      ['reactivateCarShare', 'Platform', 'CarShare', null],
      ['suspendCarShare', 'Platform', 'CarShare', null],
    ]);
    // The default car share's trail holds none of it.
    const [inA] = await t.sql<{ n: string }>(
      `select count(*) as n from audit_entry where car_share_id = ? and subject_type = 'CarShare'`,
      [t.aId],
    );
    expect(Number(inA?.n)).toBe(0);
  });

  it('refuse the default car share (409 Conflict, DefaultCarShare), an unknown Id, and a reason over 1000 characters', async () => {
    await expect(suspendCarShare(orm(), t.aId, null, PLATFORM, new Date())).rejects.toMatchObject({
      code: 'Conflict',
      details: { meta: { Reason: 'DefaultCarShare' } },
    });
    await expect(suspendCarShare(orm(), randomUUID(), null, PLATFORM, new Date())).rejects.toMatchObject({
      code: 'NotFound',
    });
    await expect(reactivateCarShare(orm(), 'not-an-id', PLATFORM, new Date())).rejects.toMatchObject({
      code: 'NotFound',
    });
    await expect(suspendCarShare(orm(), t.bId, 'x'.repeat(1001), PLATFORM, new Date())).rejects.toMatchObject(
      {
        code: 'TooLong',
      },
    );
    const [row] = await t.sql<{ status: string }>('select status from car_share where id = ?', [t.bId]);
    expect(row?.status).toBe('Active');
  });
});

describe('npm run admin -- suspend-car-share / reactivate-car-share', () => {
  it('suspend and reactivate by URL or Id, print JSON, and are audited as Cli', async () => {
    const s = await admin('suspend-car-share', '--car-share', t.B.origin, '--reason', 'Maintenance');
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({
      Id: t.bId,
      Status: 'Suspended',
      SuspendedReason: 'Maintenance',
      SuspendedDateUtc: expect.any(String),
    });
    const r = await admin('reactivate-car-share', '--car-share', t.bId);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ Id: t.bId, Status: 'Active', SuspendedReason: null });
    const trail = await trailOfB();
    expect(trail.slice(0, 2).map((e) => [e.Action, e.ActorType])).toEqual([
      ['reactivateCarShare', 'Cli'],
      ['suspendCarShare', 'Cli'],
    ]);
  }, 120_000);

  it('exit 1 naming --car-share for an unknown car share, a refused state change or the default one; 2 for usage', async () => {
    const unknown = await admin('suspend-car-share', '--car-share', 'https://nowhere.example');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--car-share');
    const wrongState = await admin('reactivate-car-share', '--car-share', t.B.origin);
    expect(wrongState.code).toBe(1);
    expect(wrongState.stderr).toContain('--car-share');
    expect(wrongState.stderr).toContain('InvalidStateTransition');
    const dflt = await admin('suspend-car-share', '--car-share', t.s.origin);
    expect(dflt.code).toBe(1);
    expect(dflt.stderr).toContain('DefaultCarShare');
    expect(dflt.stderr).toContain('--car-share');
    for (const r of [
      await admin('suspend-car-share'),
      await admin('reactivate-car-share', '--reason', 'x'),
    ]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('suspend-car-share --car-share ID|URL [--reason R]');
    }
    const rows = await t.sql<{ status: string }>(
      'select status from car_share where id in (?, ?) order by is_default desc',
      [t.aId, t.bId],
    );
    expect(rows.map((x) => x.status)).toEqual(['Active', 'Active']);
  }, 120_000);
});

const admin = (...args: string[]) =>
  npmRun('admin', args, { DATABASE_URL: inject('databaseUrl'), PUBLIC_URL: t.s.origin });
