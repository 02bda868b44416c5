// GraphQL for ratings: read-only.
import type { IResolvers } from '@graphql-tools/utils';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { RatingSchema, type SubjectType } from './rating.entity.js';
import { ratingBySubject } from './rating.loaders.js';

const resolvers: IResolvers<unknown, Context> = {
  Query: {
    rating: (_: unknown, args: { subjectType: SubjectType; subjectId: string }, ctx: Context) =>
      ratingBySubject(ctx).load({ subjectType: args.subjectType, subjectId: args.subjectId }),
  },
};

export const ratingsModule: DomainModule = { name: 'ratings', entities: [RatingSchema], resolvers };
