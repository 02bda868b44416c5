// Changes made with the admin command line (CONTRACT §12, §27): each in its own transaction, acting as the console,
// with the audit entry its GraphQL mutation declares, naming `Cli` instead of an account or an application.
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Actor, commandLine } from '../access/actor.js';
import type { Clock } from '../shared/clock.js';
import {
  type AuditDeclaration,
  type AuditDeclarations,
  isAudited,
  type NotAdministrative,
  recordAudit,
} from './audit.declaration.js';

export interface CommandLineContext {
  em: EntityManager;
  actor: Actor;
  clock: Clock;
}

/** The mutation a command-line change stands for: its name and the declaration of its module. */
export interface CommandLineChange {
  action: string;
  audit: AuditDeclarations | undefined;
  args?: unknown;
}

/** Records the entry of one change made by the console, on the change's own transaction. */
export function auditCommandLine(
  ctx: Pick<CommandLineContext, 'em' | 'clock'>,
  change: CommandLineChange,
  result: unknown,
): void {
  const declared: AuditDeclaration | NotAdministrative | undefined = change.audit?.[change.action];
  if (isAudited(declared))
    recordAudit({ ...ctx, actor: commandLine }, change.action, declared, change.args ?? {}, result);
}

/** Runs `work` as the console in one transaction of its own; its audit entry commits or rolls back with it. */
export async function changeFromCommandLine<T>(
  em: EntityManager,
  clock: Clock,
  change: CommandLineChange,
  work: (ctx: CommandLineContext) => Promise<T>,
): Promise<T> {
  return em.fork().transactional(async (tem) => {
    const ctx = { em: tem as EntityManager, actor: commandLine, clock };
    const result = await work(ctx);
    auditCommandLine(ctx, change, result);
    return result;
  });
}
