// GraphQL for client applications: thin; reads through queries, changes through commands.
import type { IResolvers } from '@graphql-tools/utils';
import type { AuditDeclaration } from '../audit/audit.declaration.js';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import {
  type ClientApplicationInput,
  createClientApplication,
  deleteClientApplication,
  reactivateClientApplication,
  rotateClientApplicationSecret,
  suspendClientApplication,
  updateClientApplication,
} from './client-application.commands.js';
import { type ClientApplication, ClientApplicationSchema } from './client-application.entity.js';
import {
  type ClientApplicationFilter,
  connectedUsersByClientId,
  getClientApplication,
  searchClientApplications,
} from './client-application.queries.js';

type Id = { id: string };
type With<I> = Id & { input: I };

const resolvers: IResolvers<unknown, Context> = {
  Query: {
    clientApplications: (_: unknown, args: ClientApplicationFilter, ctx: Context) =>
      searchClientApplications(ctx, args),
    clientApplication: (_: unknown, { id }: Id, ctx: Context) => getClientApplication(ctx, id),
  },
  Mutation: {
    createClientApplication: (_: unknown, { input }: { input: ClientApplicationInput }, ctx: Context) =>
      createClientApplication(ctx, input),
    updateClientApplication: (_: unknown, { id, input }: With<ClientApplicationInput>, ctx: Context) =>
      updateClientApplication(ctx, id, input),
    deleteClientApplication: (_: unknown, { id }: Id, ctx: Context) => deleteClientApplication(ctx, id),
    rotateClientApplicationSecret: (_: unknown, { id }: Id, ctx: Context) =>
      rotateClientApplicationSecret(ctx, id),
    suspendClientApplication: (_: unknown, { id }: Id, ctx: Context) => suspendClientApplication(ctx, id),
    reactivateClientApplication: (_: unknown, { id }: Id, ctx: Context) =>
      reactivateClientApplication(ctx, id),
  },
  ClientApplication: {
    // Present only on the answer to create and rotate.
    clientSecret: (a: { clientSecret?: string }) => a.clientSecret ?? null,
    connectedUsers: (a: ClientApplication, _: unknown, ctx: Context) =>
      connectedUsersByClientId(ctx).load(a.clientId),
  },
};

/** Every change to a client application is an operator's (CONTRACT §18). */
const app: AuditDeclaration = { subjectType: 'ClientApplication', subjectId: ({ id }: Id) => id };

export const clientappsModule: DomainModule = {
  name: 'clientapps',
  entities: [ClientApplicationSchema],
  resolvers,
  audit: {
    createClientApplication: {
      subjectType: 'ClientApplication',
      subjectId: (_, r: ClientApplication) => r.id,
    },
    updateClientApplication: app,
    deleteClientApplication: app,
    // CONTRACT §18 names this action `rotateClientSecret`.
    rotateClientApplicationSecret: { ...app, action: 'rotateClientSecret' },
    suspendClientApplication: app,
    reactivateClientApplication: app,
  },
};
