// graphql-ws's queries and mutations run as /graphql runs them, through the execution service (execution.ts):
// behind the execution gate (CONTRACT §13 "Memory", §28 "Overload"), compiled (graphql-jit) when the document can
// be, counted in `graphql_operations_total`; their errors shaped and masked by errors.ts. What graphql-ws would
// otherwise send is each error's raw JSON: an unexpected failure's own message, and none of the codes a /graphql
// client reads.
import { randomUUID } from 'node:crypto';
import {
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
} from 'graphql';
import type { ExecutionResult as SocketResult } from 'graphql-ws';
import type { Logger } from '../shared/log.js';
import type { Context } from './context.js';
import { formatExecutionErrors, formatRequestErrors } from './errors.js';
import type { Execution } from './execution.js';
import { isGateRefusal } from './execution-lane.js';

export interface SocketExecution {
  /** graphql-ws's `execute`: a query or mutation, through the gate, compiled when it can be. */
  execute(args: ExecutionArgs): Promise<ExecutionResult>;
  /** graphql-ws's `onNext`: a result's errors (a subscription event's too) as /graphql shapes them. */
  onNext(args: ExecutionArgs, result: SocketResult): FormattedExecutionResult | undefined;
  /** graphql-ws's `onError`: a refused or invalid document, or a subscription that failed while streaming. */
  onError(errors: readonly GraphQLError[]): readonly GraphQLFormattedError[];
}

export function socketExecution(deps: { execution: Execution; log: Logger }): SocketExecution {
  return {
    async execute(args) {
      try {
        return await deps.execution.run({
          document: args.document,
          // graphql-ws parses each subscribe anew: the compiled form is found by the document's text.
          text: args.document.loc?.source.body,
          operationName: args.operationName,
          variables: (args.variableValues ?? {}) as Record<string, unknown>,
          context: args.contextValue as Context,
        });
      } catch (e) {
        if (!isGateRefusal(e)) throw e;
        // A large query that cannot start in time gets `ServiceUnavailable` instead of running; the connection
        // stays open (errors.ts shapes it as limits.ts answers it on /graphql).
        return { errors: [new GraphQLError(e.message, { originalError: e, extensions: { code: e.code } })] };
      }
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
