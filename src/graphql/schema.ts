// Builds the executable schema from schema/*.graphql and the subdomains' resolvers. Every Query and
// Mutation field passes the permission gate; every mutation runs in one transaction, which also writes the
// mutation's audit entry when its module declares one.
import { readdirSync, readFileSync } from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import { authorize, isOperation, operations } from '../access/permissions.js';
import {
  type AuditDeclaration,
  type AuditDeclarations,
  isAudited,
  recordAudit,
} from '../audit/audit.declaration.js';
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

/**
 * Runs the mutation in a transaction with its own context; its audit entry joins the same transaction, so a
 * mutation that fails records nothing. After-commit work runs once it has committed.
 */
function transactional(resolve: Resolver, audit: AuditDeclaration | undefined): Resolver {
  return async (parent, args, ctx, info) => {
    const tx: Context = { ...ctx, loaders: new Map(), afterCommit: [] };
    const result = await ctx.em.transactional(async (tem) => {
      tx.em = tem as Context['em'];
      const done = await resolve(parent, args, tx, info);
      if (audit) recordAudit(tx, info.fieldName, audit, args, done);
      return done;
    });
    for (const job of tx.afterCommit) await job();
    return result;
  };
}

/**
 * Every mutation that operators or client applications may run is an administrative change unless its module
 * says why not: a new one cannot be added without deciding its audit entry.
 */
function auditDeclarations(modules: DomainModule[], mutations: readonly string[]): AuditDeclarations {
  const all: AuditDeclarations = Object.assign({}, ...modules.map((m) => m.audit ?? {}));
  for (const name of Object.keys(all))
    if (!mutations.includes(name)) throw new Error(`audit declared for ${name}, which is no mutation`);
  for (const name of mutations) {
    const rule = isOperation(name) ? operations[name] : {};
    if (('ops' in rule || 'clientapplication' in rule) && all[name] === undefined)
      throw new Error(
        `mutation ${name} is open to operators or client applications: declare its audit entry in its module`,
      );
  }
  return all;
}

export function buildSchema(modules: DomainModule[]): GraphQLSchema {
  const resolvers: IResolvers<unknown, Context>[] = [
    { DateTime, JSON: JSONScalar, UUID: UUIDScalar },
    ...modules.map((m) => m.resolvers),
  ];
  const schema = makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers });
  const mutation = schema.getMutationType();
  const audit = auditDeclarations(modules, mutation ? Object.keys(mutation.getFields()) : []);
  for (const typeName of ['Query', 'Mutation'] as const) {
    const type = schema.getType(typeName);
    if (!type || !isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const base = (field.resolve ?? defaultFieldResolver) as Resolver;
      const gated = gate(field.name, base);
      const declared = audit[field.name];
      field.resolve =
        typeName === 'Mutation' ? transactional(gated, isAudited(declared) ? declared : undefined) : gated;
    }
  }
  return schema;
}
