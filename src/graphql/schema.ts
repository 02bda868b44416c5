// Builds the executable schema from schema/*.graphql and the subdomains' resolvers. Every Query and
// Mutation field passes the permission gate; every mutation runs in one transaction.
import { readdirSync, readFileSync } from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import { authorize, isOperation } from '../auth/permissions.js';
import type { Context } from './context.js';
import type { DomainModule } from './module.js';
import { DateTime, JSONScalar, UUIDScalar } from './scalars.js';

const schemaDir = new URL('../../schema/', import.meta.url);

export function loadTypeDefs(): string[] {
  return readdirSync(schemaDir)
    .filter((f) => f.endsWith('.graphql'))
    .sort((a, b) => (a === 'common.graphql' ? -1 : b === 'common.graphql' ? 1 : a.localeCompare(b)))
    .map((f) => readFileSync(new URL(f, schemaDir), 'utf8'));
}

type Resolver = GraphQLFieldResolver<unknown, Context>;

function gate(operation: string, resolve: Resolver): Resolver {
  if (!isOperation(operation)) throw new Error(`operation ${operation} has no rule in the permission table`);
  return (parent, args, ctx, info) => {
    authorize(operation, ctx.actor);
    return resolve(parent, args, ctx, info);
  };
}

/** Runs the mutation in a transaction with its own context; after-commit work runs once it has committed. */
function transactional(resolve: Resolver): Resolver {
  return async (parent, args, ctx, info) => {
    const tx: Context = { ...ctx, loaders: new Map(), afterCommit: [] };
    const result = await ctx.em.transactional(async (tem) => {
      tx.em = tem as Context['em'];
      return resolve(parent, args, tx, info);
    });
    for (const job of tx.afterCommit) await job();
    return result;
  };
}

export function buildSchema(modules: DomainModule[]): GraphQLSchema {
  const resolvers: IResolvers<unknown, Context>[] = [
    { DateTime, JSON: JSONScalar, UUID: UUIDScalar },
    ...modules.map((m) => m.resolvers),
  ];
  const schema = makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers });
  for (const typeName of ['Query', 'Mutation'] as const) {
    const type = schema.getType(typeName);
    if (!type || !isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const base = (field.resolve ?? defaultFieldResolver) as Resolver;
      const gated = gate(field.name, base);
      field.resolve = typeName === 'Mutation' ? transactional(gated) : gated;
    }
  }
  return schema;
}
