// How an administrative mutation declares its audit entry, next to its resolver in its module. The schema
// assembly applies the declarations inside each mutation's transaction, and refuses to build when a mutation
// operators or client applications may run declares neither an entry nor why it is not administrative.

import type { EntityManager } from '@mikro-orm/postgresql';
import { type Actor, actorClass, isCommandLine } from '../access/actor.js';
import type { Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import { type AuditActorType, AuditEntry, type AuditSubjectType } from './audit-entry.entity.js';

/** The actor classes whose calls are administrative changes. A user acting for themselves never is. */
export const administrativeClasses = ['ops', 'clientapplication'] as const;
export type AdministrativeClass = (typeof administrativeClasses)[number];

export interface AuditDeclaration {
  subjectType: AuditSubjectType;
  /** The subject's id from the mutation's arguments and result; several ids record one entry each. */
  // biome-ignore lint/suspicious/noExplicitAny: arguments and results are shaped by each mutation's SDL
  subjectId: (args: any, result: any) => string | readonly string[];
  /** The `Action` written, where CONTRACT §18 names it apart from the operation (default: the operation's name). */
  action?: string;
  /** Whose calls are recorded (default: operators and client applications). */
  by?: readonly AdministrativeClass[];
}

/** Why a mutation open to operators or client applications is no administrative change (read by people). */
export interface NotAdministrative {
  notAdministrative: string;
}

/** Per mutation name: its entry, or why it has none. */
export type AuditDeclarations = Readonly<Record<string, AuditDeclaration | NotAdministrative>>;

export const isAudited = (d: AuditDeclaration | NotAdministrative | undefined): d is AuditDeclaration =>
  d !== undefined && 'subjectType' in d;

export interface AuditContext {
  em: EntityManager;
  actor: Actor;
  clock: Clock;
  requestId?: string | undefined;
}

/**
 * Persists the entries of one mutation on its transaction's EntityManager, so they commit or roll back with
 * the change. Only ids and names are written: nothing from the arguments or the result's other fields.
 */
export function recordAudit(
  ctx: AuditContext,
  action: string,
  declaration: AuditDeclaration,
  args: unknown,
  result: unknown,
): void {
  const actor = auditedActor(ctx.actor, declaration);
  if (!actor) return;
  const ids = declaration.subjectId(args, result);
  const occurred = ctx.clock.now();
  for (const subjectId of typeof ids === 'string' ? [ids] : ids)
    ctx.em.persist(
      ctx.em.create(AuditEntry, {
        id: newId(),
        occurredDateUtc: occurred,
        ...actor,
        action: declaration.action ?? action,
        subjectType: declaration.subjectType,
        subjectId,
        // The command line answers no request (CONTRACT §27).
        requestId: actor.actorType === 'Cli' ? null : (ctx.requestId ?? null),
      }),
    );
}

/** Whom an entry names, or null when this caller's change is not administrative. */
function auditedActor(
  actor: Actor,
  declaration: AuditDeclaration,
): { actorType: AuditActorType; actorId: string | null } | null {
  if (isCommandLine(actor)) return { actorType: 'Cli', actorId: null };
  const cls = actorClass(actor);
  const by: readonly string[] = declaration.by ?? administrativeClasses;
  if (!by.includes(cls) || !actor.id) return null;
  return { actorType: cls === 'ops' ? 'UserAccount' : 'ClientApplication', actorId: actor.id };
}
