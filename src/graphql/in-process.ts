// How GraphQL clients living in this process (the REST facade, the dashboard) run a document: a read runs its
// compiled form directly, behind the execution gate, its errors shaped as Apollo shapes them; anything else goes
// through Apollo.
import type { ApolloServer } from '@apollo/server';
import { type DocumentNode, type ExecutionResult, type GraphQLSchema, print } from 'graphql';
import type { Actor } from '../access/actor.js';
import type { CarShare } from '../carshares/car-share.js';
import type { Context } from './context.js';
import { formatError, formatExecutionErrors } from './errors.js';
import type { Execution } from './execution.js';
import { isGateRefusal, refusalError } from './execution-lane.js';
import { sizeRefusalOf } from './limits.guard.js';

export interface InProcessDeps {
  schema: GraphQLSchema;
  execution: Execution;
  apollo: ApolloServer<Context>;
  contextFor(actor: Actor, requestId: string, carShare: CarShare): Context;
}

const isQuery = (d: DocumentNode): boolean =>
  d.definitions.every((def) => def.kind !== 'OperationDefinition' || def.operation === 'query');

export function inProcessExecutor(deps: InProcessDeps) {
  // The facade hands over the same cached DocumentNode for every request of a shape; Apollo would print it again
  // each time to look it up in its document store (a few % of a REST read, test/bench S2), so its text is kept.
  const printed = new WeakMap<DocumentNode, string>();
  const sourceOf = (d: DocumentNode): string => {
    let text = printed.get(d);
    if (text === undefined) {
      text = print(d);
      printed.set(d, text);
    }
    return text;
  };
  return async (
    document: string | DocumentNode,
    variables: Record<string, unknown>,
    actor: Actor,
    carShare: CarShare,
    requestId: string,
    /** Aborts when the client hangs up: a read still queued at the gate then never runs. */
    signal?: AbortSignal,
  ) => {
    // CONTRACT §28 on this path too: a document too large once expanded is refused before Apollo validates it or
    // graphql-jit compiles it, answered as Apollo answers the other limits.
    const refusal = sizeRefusalOf(deps.schema, document);
    if (refusal)
      return { errors: [formatError({ message: refusal.message, extensions: refusal.extensions }, refusal)] };
    const contextValue = deps.contextFor(actor, requestId, carShare);
    contextValue.signal = signal;
    // A facade read runs its compiled document without Apollo's request pipeline (it needs none of its plugins:
    // no mutation to announce, no cache hints). It runs once, failed or not: its errors get the shape and logging
    // of every other path from errors.ts. Apollo runs it only when it did not run (not compiled, variables refused).
    if (typeof document !== 'string' && isQuery(document)) {
      // It takes its turn at the execution gate like every other execution (CONTRACT §13 "Memory"): a single
      // object or a short page runs at once; larger pages share the page lane's budget (gateSizes, execution-gate.ts).
      // A refusal (CONTRACT §28 "Overload") is its answer, in the shape Apollo gives it on /graphql (limits.ts).
      let result: ExecutionResult | undefined;
      try {
        result = await deps.execution.runCompiled({ document, variables, context: contextValue }, signal);
      } catch (e) {
        if (isGateRefusal(e)) return { errors: [refusalError(e)] };
        throw e;
      }
      if (result) {
        const data = result.data as Record<string, unknown> | null;
        if (!result.errors?.length) return { data };
        return { data, errors: formatExecutionErrors(result.errors, contextValue) };
      }
    }
    const query = typeof document === 'string' ? document : sourceOf(document);
    const res = await deps.apollo.executeOperation({ query, variables }, { contextValue });
    if (res.body.kind !== 'single') throw new Error('expected a single GraphQL result');
    return res.body.singleResult;
  };
}
