// The one place a GraphQL document is executed. `/graphql` (Apollo's gateway hook and its limits plugin),
// graphql-ws, the REST facade and the dashboard all run documents here: compiled by graphql-jit when the document
// can be (one store of compiled documents, compiled.ts), in graphql-js otherwise, a large query of several root
// fields one root field at a time (split-execution.ts). `run` and `runCompiled` also take the execution gate's turn
// (CONTRACT §13 "Memory", §28 "Overload") and count the operation in `graphql_operations_total`; Apollo counts and
// gates /graphql's own in its plugins. test/architecture.test.ts keeps every other module from executing.
import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  getOperationAST,
  execute as graphqlExecute,
  type OperationDefinitionNode,
} from 'graphql';
import type { Metrics } from '../metrics/metrics.js';
import { CompiledDocuments } from './compiled.js';
import type { Context } from './context.js';
import { complexityOf } from './cost.js';
import type { ExecutionGate } from './execution-gate.js';
import { executeByRootField, type FormatError, type SplitResult } from './split-execution.js';

export interface ExecuteArgs {
  /** A document that has been validated and passed the limits. */
  document: DocumentNode;
  /**
   * Its text, when the caller has it: a client's documents are compiled once per text (Apollo and graphql-ws
   * parse each request anew); the REST facade's once per node (it hands over the same node for a shape).
   */
  text?: string | undefined;
  operationName?: string | null | undefined;
  variables: Record<string, unknown> | undefined;
  context: Context;
}

export interface Execution {
  /** Runs a document, compiled when it can be and in graphql-js otherwise (bad variables included). */
  execute(args: ExecuteArgs): Promise<ExecutionResult>;
  /** A large query of several root fields, one at a time (/graphql's limits plugin, inside the gate's turn). */
  executeByRootField(
    args: ExecuteArgs & { operation: OperationDefinitionNode; formatError: FormatError; asText: boolean },
  ): Promise<SplitResult>;
  /** The gate's turn, then `execute`, counted. Rejects with the gate's refusal (`isGateRefusal`). */
  run(args: ExecuteArgs, signal?: AbortSignal): Promise<ExecutionResult>;
  /**
   * The gate's turn, then the compiled form only, counted when it ran. Undefined when the document cannot be
   * compiled or its variables were refused before anything ran: the caller then runs it through Apollo, whose
   * answer to bad input is the one the contract documents (in-process.ts). Rejects with the gate's refusal.
   */
  runCompiled(args: ExecuteArgs, signal?: AbortSignal): Promise<ExecutionResult | undefined>;
}

export function createExecution(deps: {
  schema: GraphQLSchema;
  gate: ExecutionGate;
  metrics: Metrics;
}): Execution {
  const { schema, gate, metrics } = deps;
  const compiled = new CompiledDocuments(schema);
  // A document's cost, kept when no variable went into it (a car by id; not a page whose limit is a variable):
  // the facade hands over the same DocumentNode for every request of a shape, and costing it again was a per cent
  // of a REST read's CPU (test/bench, S2).
  const fixedCosts = new WeakMap<DocumentNode, number>();
  // Kept by document alone only when no operation was named: a document may hold several operations.
  const costOf = (
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown>,
  ): number => {
    const known = operationName ? undefined : fixedCosts.get(document);
    if (known !== undefined) return known;
    let read = false;
    const watched = new Proxy(variables, {
      get(target, name) {
        read = true;
        return Reflect.get(target, name);
      },
    });
    const cost = complexityOf(schema, document, operationName, watched)?.cost ?? 0;
    if (!read && !operationName) fixedCosts.set(document, cost);
    return cost;
  };
  const runCompiled = (a: ExecuteArgs) =>
    compiled.run(a.document, a.variables, a.context, a.text, a.operationName);
  const interpret = (a: ExecuteArgs) =>
    graphqlExecute({
      schema,
      document: a.document,
      variableValues: a.variables,
      contextValue: a.context,
      operationName: a.operationName,
    });
  const execute = async (a: ExecuteArgs): Promise<ExecutionResult> => (await runCompiled(a)) ?? interpret(a);
  /** Named as Apollo names it: by the operation the document holds when the client named none. */
  const count = (a: ExecuteArgs, result: ExecutionResult) => {
    const operation = getOperationAST(a.document, a.operationName);
    metrics.operation(
      operation?.operation ?? 'unknown',
      operation?.name?.value ?? a.operationName,
      (result.errors?.length ?? 0) > 0,
    );
  };
  const costOfArgs = (a: ExecuteArgs) => costOf(a.document, a.operationName, a.variables ?? {});
  return {
    execute,
    // Each piece is a document of its own, made for this request: interpreted, not compiled and held.
    executeByRootField: (a) =>
      executeByRootField({ ...a, execute: async (piece) => interpret({ ...a, document: piece }) }),
    async run(a, signal) {
      const result = await gate.run(costOfArgs(a), () => execute(a), signal);
      count(a, result);
      return result;
    },
    async runCompiled(a, signal) {
      const result = await gate.run(costOfArgs(a), () => runCompiled(a), signal);
      if (result) count(a, result);
      return result;
    },
  };
}
