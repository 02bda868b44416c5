// What each subdomain contributes to the composition: its entities and its resolvers.
import type { IResolvers } from '@graphql-tools/utils';
import type { Context } from './context.js';

export interface DomainModule {
  name: string;
  /** defineEntity schemas, handed to MikroORM. */
  entities: unknown[];
  resolvers: IResolvers<unknown, Context>;
}
