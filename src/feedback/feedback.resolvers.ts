// GraphQL for feedback: thin; reads through loaders and queries, changes through commands. Leaving feedback
// belongs to a booking, so its mutation lives with bookings and calls createFeedback.
import type { IResolvers } from '@graphql-tools/utils';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { deleteFeedback, type FeedbackInput, updateFeedback } from './feedback.commands.js';
import { FeedbackSchema } from './feedback.entity.js';
import { type FeedbackFilter, getFeedback, searchFeedbacks } from './feedback.queries.js';

type Id = { id: string };

const resolvers: IResolvers<unknown, Context> = {
  Query: {
    feedbacks: (_: unknown, args: FeedbackFilter, ctx: Context) => searchFeedbacks(ctx, args),
    feedback: (_: unknown, { id }: Id, ctx: Context) => getFeedback(ctx, id),
  },
  Mutation: {
    updateFeedback: (_: unknown, { id, input }: Id & { input: FeedbackInput }, ctx: Context) =>
      updateFeedback(ctx, id, input),
    deleteFeedback: (_: unknown, { id }: Id, ctx: Context) => deleteFeedback(ctx, id),
  },
};

const own = { notAdministrative: 'only its author changes feedback, as themselves' };

export const feedbackModule: DomainModule = {
  name: 'feedback',
  entities: [FeedbackSchema],
  resolvers,
  audit: { updateFeedback: own, deleteFeedback: own },
};
