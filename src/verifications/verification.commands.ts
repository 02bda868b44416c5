// The business verbs of verifications: create with the subject, submit evidence, verify, reject, expire, reset.
import { type Actor, actorClass, hasScope, isSelf } from '../access/actor.js';
import { requireScope } from '../access/permissions.js';
import { recordEvent } from '../events/outbox.js';
import type { CommandContext } from '../graphql/context.js';
import type { SubjectType } from '../ratings/rating.entity.js';
import { forbidden, invalidState, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { Check } from '../shared/validation.js';
import { parseEvidence } from './evidence.js';
import { requiredKinds, Verification, type VerificationKind } from './verification.entity.js';

/** Who may see a verification at all: its subject's user, ops, and apps or users reading verifications network-wide. */
export function canSee(actor: Actor, v: Pick<Verification, 'subjectUserId'>): boolean {
  const cls = actorClass(actor);
  if (cls === 'ops') return true;
  if (cls === 'clientapplication')
    return hasScope(actor, 'verifications:read') || hasScope(actor, 'verifications:write');
  return isSelf(actor, v.subjectUserId);
}

/**
 * Evidence is PII (e-mail, phone, licence numbers), so CONTRACT §5's PII rule applies: the subject, ops, and
 * client applications with `users:read`. `verifications:read` alone shows statuses, not evidence.
 */
export function canSeeEvidence(actor: Actor, v: Pick<Verification, 'subjectUserId'>): boolean {
  const cls = actorClass(actor);
  if (cls === 'ops' || isSelf(actor, v.subjectUserId)) return true;
  return cls === 'clientapplication' && hasScope(actor, 'users:read');
}

function touch(v: Verification, now: Date): void {
  v.lastModifiedDateUtc = now;
}

function emit(ctx: CommandContext, v: Verification): void {
  recordEvent(
    ctx,
    'verification_update',
    { id: v.id, subjectType: v.subjectType, subjectId: v.subjectId, kind: v.kind, status: v.status },
    [v.subjectUserId],
  );
}

/** A verification with nothing submitted and nothing decided: how one starts, and what a reset returns it to. */
const unverified = {
  status: 'Unverified',
  evidence: null,
  expiresDateUtc: null,
  decidedDateUtc: null,
  decidedById: null,
  reason: null,
} as const;

/** Creates the subject's required records, Unverified; called in the transaction that creates the subject. */
export function createRequiredVerifications(
  ctx: Pick<CommandContext, 'em' | 'clock'>,
  subjectType: SubjectType,
  subjectId: string,
  subjectUserId: string,
): Verification[] {
  const now = ctx.clock.now();
  return requiredKinds[subjectType].map((kind) => {
    const v = ctx.em.create(Verification, {
      id: newId(),
      subjectType,
      subjectId,
      subjectUserId,
      kind,
      ...unverified,
      createdDateUtc: now,
      lastModifiedDateUtc: now,
    });
    ctx.em.persist(v);
    return v;
  });
}

/** A changed licence or plate on the subject invalidates that kind's verification. */
export async function resetVerification(
  ctx: CommandContext,
  subjectType: SubjectType,
  subjectId: string,
  kind: VerificationKind,
): Promise<void> {
  const v = await ctx.em.findOne(Verification, { subjectType, subjectId, kind });
  if (!v || v.status === 'Unverified') return;
  Object.assign(v, unverified);
  touch(v, ctx.clock.now());
  emit(ctx, v);
}

async function load(ctx: CommandContext, id: string): Promise<Verification> {
  const v = await ctx.em.findOne(Verification, { id });
  if (!v || !canSee(ctx.actor, v)) throw notFound('Verification');
  return v;
}

export async function submitVerification(
  ctx: CommandContext,
  id: string,
  evidenceInput: unknown,
): Promise<Verification> {
  const v = await ctx.em.findOne(Verification, { id });
  if (!v || !canSee(ctx.actor, v)) throw notFound('Verification');
  // Only the subject submits evidence; others who can see the record (ops) are refused, not misled.
  if (!isSelf(ctx.actor, v.subjectUserId))
    throw forbidden('Only the subject of a verification submits its evidence');
  requireScope(ctx.actor, v.subjectType === 'Car' ? 'cars:write' : 'account:write');
  if (v.status === 'Verified') throw invalidState(v.status, 'This verification is already Verified');
  const now = ctx.clock.now();
  const { evidence, expiresDateUtc } = parseEvidence(v.kind, evidenceInput, now);
  Object.assign(v, {
    status: 'Pending',
    evidence,
    expiresDateUtc,
    decidedDateUtc: null,
    decidedById: null,
    reason: null,
  });
  touch(v, now);
  emit(ctx, v);
  return v;
}

function checkReason(reason: string | null | undefined): void {
  const c = new Check();
  c.length('reason', reason, 0, 1000);
  c.throwIfAny();
}

async function decide(
  ctx: CommandContext,
  id: string,
  to: 'Verified' | 'Rejected',
  reason: string | null | undefined,
) {
  checkReason(reason);
  const v = await load(ctx, id);
  if (v.status !== 'Pending') throw invalidState(v.status, `Only a Pending verification can become ${to}`);
  const now = ctx.clock.now();
  if (to === 'Verified' && v.expiresDateUtc && v.expiresDateUtc.getTime() <= now.getTime()) {
    Object.assign(v, {
      status: 'Expired',
      decidedDateUtc: now,
      decidedById: ctx.actor.id,
      reason: reason ?? null,
    });
  } else {
    Object.assign(v, { status: to, decidedDateUtc: now, decidedById: ctx.actor.id, reason: reason ?? null });
  }
  touch(v, now);
  emit(ctx, v);
  return v;
}

export const verifyVerification = (ctx: CommandContext, id: string, reason?: string | null) =>
  decide(ctx, id, 'Verified', reason);
export const rejectVerification = (ctx: CommandContext, id: string, reason?: string | null) =>
  decide(ctx, id, 'Rejected', reason);

/** Records expired by one run of expireVerifications (one transaction). */
export const EXPIRY_BATCH = 500;

/**
 * The system's sweep, in one car share's scope (verification.expiry.ts runs it for each): up to EXPIRY_BATCH
 * Verified records whose evidence expired become Expired. Returns how many changed.
 */
export async function expireVerifications(ctx: Pick<CommandContext, 'em' | 'clock'>): Promise<number> {
  const now = ctx.clock.now();
  const due = await ctx.em.find(
    Verification,
    { status: 'Verified', expiresDateUtc: { $lte: now } },
    { limit: EXPIRY_BATCH },
  );
  for (const v of due) {
    v.status = 'Expired';
    touch(v, now);
    emit({ ...ctx, actor: { kind: 'anonymous', id: null, roles: [], scopes: [] } }, v);
  }
  return due.length;
}
