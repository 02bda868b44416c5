// graphql-ws's queries and mutations run as /graphql runs them: behind the execution gate (CONTRACT §13 "Memory",
// §28 "Overload"), compiled (graphql-jit) when the document can be, their errors shaped and masked by errors.ts and
// counted in `graphql_operations_total`. What graphql-ws would otherwise send is each error's raw JSON: an
// unexpected failure's own message, and none of the codes a /graphql client reads.
import { randomUUID } from 'node:crypto';
import {
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  getOperationAST,
  execute as graphqlExecute,
} from 'graphql';
import type { ExecutionResult as SocketResult } from 'graphql-ws';
import type { Metrics } from '../metrics/metrics.js';
import type { Logger } from '../shared/log.js';
import type { CompiledDocuments } from './compiled.js';
import type { Context } from './context.js';
import { complexityOf } from './cost.js';
import { formatExecutionErrors, formatRequestErrors } from './errors.js';
import type { ExecutionGate } from './execution-gate.js';
import { isGateRefusal } from './execution-lane.js';

export interface SocketExecution {
  /** graphql-ws's `execute`: a query or mutation, through the gate, compiled when it can be. */
  execute(args: ExecutionArgs): Promise<ExecutionResult>;
  /** graphql-ws's `onNext`: a result's errors (a subscription event's too) as /graphql shapes them. */
  onNext(args: ExecutionArgs, result: SocketResult): FormattedExecutionResult | undefined;
  /** graphql-ws's `onError`: a refused or invalid document, or a subscription that failed while streaming. */
  onError(errors: readonly GraphQLError[]): readonly GraphQLFormattedError[];
}

export function socketExecution(deps: {
  schema: GraphQLSchema;
  compiled: CompiledDocuments;
  gate: ExecutionGate;
  metrics: Metrics;
  log: Logger;
}): SocketExecution {
  const { schema, compiled, gate, metrics } = deps;
  const run = async (args: ExecutionArgs): Promise<ExecutionResult> => {
    // graphql-ws parses each subscribe anew: the compiled form is found by the document's text.
    const text = args.document.loc?.source.body;
    const variables = (args.variableValues ?? {}) as Record<string, unknown>;
    const result = await compiled.run(args.document, variables, args.contextValue, text, args.operationName);
    return result ?? graphqlExecute(args);
  };
  return {
    async execute(args) {
      const cost = complexityOf(schema, args.document, args.operationName, args.variableValues)?.cost ?? 0;
      let result: ExecutionResult;
      try {
        result = await gate.run(cost, () => run(args));
      } catch (e) {
        if (!isGateRefusal(e)) throw e;
        // A large query that cannot start in time gets `ServiceUnavailable` instead of running; the connection
        // stays open (errors.ts shapes it as limits.ts answers it on /graphql).
        result = {
          errors: [new GraphQLError(e.message, { originalError: e, extensions: { code: e.code } })],
        };
      }
      // Named as Apollo names it: by the operation the document holds when the client named none.
      const operation = getOperationAST(args.document, args.operationName);
      metrics.operation(
        operation?.operation ?? 'unknown',
        operation?.name?.value ?? args.operationName,
        (result.errors?.length ?? 0) > 0,
      );
      return result;
    },
    onNext(args, result) {
      if (!result.errors?.length) return undefined;
      const errors = formatExecutionErrors(result.errors, args.contextValue as Context);
      return result.data === undefined ? { errors } : { data: result.data, errors };
    },
    onError(errors) {
      // No execution context yet (or any longer): a masked failure still carries an id the log names.
      return formatRequestErrors(errors, { log: deps.log, requestId: randomUUID() });
    },
  };
}
