// GraphQL for the audit trail: reading it. Entries are written by the schema assembly, from each mutation's
// declaration (audit.declaration.ts), never by a resolver.
import type { IResolvers } from '@graphql-tools/utils';
import { type AuditEntry, AuditEntrySchema } from '../audit/audit-entry.entity.js';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { type AuditFilter, searchAuditEntries } from './audit.queries.js';

const resolvers: IResolvers<unknown, Context> = {
  Query: {
    auditEntries: (_: unknown, args: AuditFilter, ctx: Context) => searchAuditEntries(ctx, args),
  },
  AuditEntry: {
    createdDateUtc: (e: AuditEntry) => e.occurredDateUtc,
    lastModifiedDateUtc: (e: AuditEntry) => e.occurredDateUtc,
  },
};

export const auditModule: DomainModule = { name: 'audit', entities: [AuditEntrySchema], resolvers };
