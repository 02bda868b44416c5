// Verification records for tests: car subjects (cars are another subdomain) made through the real command,
// and direct look-ups of a subject's records.
import { randomUUID } from 'node:crypto';
import { newId } from '../../src/shared/ids.js';
import { createRequiredVerifications } from '../../src/verifications/verification.commands.js';
import { Verification, type VerificationKind } from '../../src/verifications/verification.entity.js';
import type { Harness } from '../support/harness.js';
import { scoped } from '../support/scope.js';

/** A car's required verifications (LicensePlate, RoadWorthiness), as creating the car makes them. */
export async function carVerifications(h: Harness, ownerId: string): Promise<string> {
  const carId = randomUUID();
  await scoped(h.orm).transactional(async (em) => {
    createRequiredVerifications({ em, clock: h.clock }, 'Car', carId, ownerId);
  });
  return carId;
}

/** An OperatorApproval record, which no subject gets by default. */
export async function operatorApproval(h: Harness, userId: string): Promise<string> {
  const id = newId();
  const now = h.clock.now();
  await scoped(h.orm).transactional(async (em) => {
    em.create(Verification, {
      id,
      subjectType: 'UserAccount',
      subjectId: userId,
      subjectUserId: userId,
      kind: 'OperatorApproval',
      status: 'Unverified',
      evidence: null,
      expiresDateUtc: null,
      decidedDateUtc: null,
      decidedById: null,
      reason: null,
      createdDateUtc: now,
      lastModifiedDateUtc: now,
    });
  });
  return id;
}

/** The id of a subject's record of one kind. */
export async function verificationId(h: Harness, subjectId: string, kind: VerificationKind): Promise<string> {
  const rows = await h.orm.em
    .fork()
    .getConnection()
    .execute<{ id: string }[]>('select id from verification where subject_id = ? and kind = ?', [
      subjectId,
      kind,
    ]);
  if (!rows[0]) throw new Error(`no ${kind} verification for ${subjectId}`);
  return rows[0].id;
}

/** A record's stored state, read past every visibility rule. */
export async function verificationRow(
  h: Harness,
  id: string,
): Promise<{ status: string; evidence: Record<string, unknown> | null }> {
  const rows = await h.orm.em
    .fork()
    .getConnection()
    .execute<{ status: string; evidence: Record<string, unknown> | null }[]>(
      'select status, evidence from verification where id = ?',
      [id],
    );
  return rows[0]!;
}
