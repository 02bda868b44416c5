// GraphQL for verifications: thin; reads through loaders and queries, changes through commands.
import type { IResolvers } from '@graphql-tools/utils';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import {
  canSeeEvidence,
  rejectVerification,
  submitVerification,
  verifyVerification,
} from './verification.commands.js';
import { type Verification, VerificationSchema } from './verification.entity.js';
import { getVerification, searchVerifications, type VerificationFilter } from './verification.queries.js';

type Id = { id: string };
type Decide = Id & { input?: { reason?: string | null } | null };

const resolvers: IResolvers<unknown, Context> = {
  Query: {
    verifications: (_: unknown, args: VerificationFilter, ctx: Context) => searchVerifications(ctx, args),
    verification: (_: unknown, { id }: Id, ctx: Context) => getVerification(ctx, id),
  },
  Mutation: {
    submitVerification: (_: unknown, { id, input }: Id & { input: { evidence?: unknown } }, ctx: Context) =>
      submitVerification(ctx, id, input.evidence),
    verifyVerification: (_: unknown, { id, input }: Decide, ctx: Context) =>
      verifyVerification(ctx, id, input?.reason),
    rejectVerification: (_: unknown, { id, input }: Decide, ctx: Context) =>
      rejectVerification(ctx, id, input?.reason),
  },
  Verification: {
    evidence: (v: Verification, _: unknown, ctx: Context) =>
      canSeeEvidence(ctx.actor, v) ? v.evidence : null,
  },
};

export const verificationsModule: DomainModule = {
  name: 'verifications',
  entities: [VerificationSchema],
  resolvers,
  audit: {
    verifyVerification: { subjectType: 'Verification', subjectId: ({ id }: Id) => id },
    rejectVerification: { subjectType: 'Verification', subjectId: ({ id }: Id) => id },
    submitVerification: { notAdministrative: 'only the subject submits evidence, for themselves' },
  },
};
