// GraphQL for reports: the summary query (ops, or `reports:read`); the permission table holds the rule.
import type { IResolvers } from '@graphql-tools/utils';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { type SummaryArgs, summary } from './summary.queries.js';

const resolvers: IResolvers<unknown, Context> = {
  Query: {
    summary: (_: unknown, args: SummaryArgs, ctx: Context) => summary(ctx, args),
  },
};

export const reportsModule: DomainModule = { name: 'reports', entities: [], resolvers };
