// What each subdomain contributes to the composition: its entities, its resolvers and its mutations' audit entries.
import type { IResolvers } from '@graphql-tools/utils';
import type { AuditDeclarations } from '../audit/audit.declaration.js';
import type { Context } from './context.js';

export interface DomainModule {
  name: string;
  /** defineEntity schemas, handed to MikroORM. */
  entities: unknown[];
  resolvers: IResolvers<unknown, Context>;
  /** Its mutations' audit entries (CONTRACT §18), applied by the schema assembly in their transaction. */
  audit?: AuditDeclarations;
}
