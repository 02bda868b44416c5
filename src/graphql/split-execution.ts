// A large query with several root fields (600 aliases of `cars` is the shape that stalled the service) runs one
// root field at a time, yielding to other requests between them and letting go of what each one loaded: its
// database work then holds a connection or two instead of the whole pool, and its memory is the answer's.
import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLFormattedError,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import type { Context } from './context.js';
import { GateRefusal, refusalError } from './execution-lane.js';
import { holdAsText } from './response-pieces.js';

export type FormatError = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The operation with only its i-th root selection, fragments kept. */
function piece(document: DocumentNode, operation: OperationDefinitionNode, i: number): DocumentNode {
  const only: OperationDefinitionNode = {
    ...operation,
    selectionSet: { ...operation.selectionSet, selections: [operation.selectionSet.selections[i]!] },
  };
  return {
    ...document,
    definitions: document.definitions.map((d) => (d === operation ? only : d)),
  };
}

export interface SplitResult {
  data: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
}

export async function executeByRootField(args: {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  context: Context;
  formatError: FormatError;
  /** Keep each root field's value as JSON text (the HTTP transport splices it into the body). */
  asText?: boolean;
  /** Runs one piece (execution.ts: graphql-js, as a piece is a document of its own each time). */
  execute(piece: DocumentNode): Promise<ExecutionResult>;
}): Promise<SplitResult> {
  const { document, operation, context } = args;
  let data: Record<string, unknown> | null = {};
  const errors: GraphQLError[] = [];
  for (let i = 0; i < operation.selectionSet.selections.length; i += 1) {
    if (i > 0) {
      // What the previous root field loaded is in its answer now; the entities and loader caches can go.
      context.em.clear();
      context.loaders.clear();
      await nextTurn();
    }
    // A client that hung up gets nothing more (CONTRACT §28): the root fields left are not run.
    if (context.signal?.aborted)
      return { data: null, errors: [refusalError(new GateRefusal('disconnected'))] };
    const r = await args.execute(piece(document, operation, i));
    if (r.errors) errors.push(...r.errors);
    // A non-null root field that failed nulls the whole answer, as one execution would.
    if (r.data === null || r.data === undefined) data = null;
    else if (data)
      for (const [key, value] of Object.entries(r.data)) data[key] = args.asText ? holdAsText(value) : value;
  }
  return {
    data,
    ...(errors.length > 0 ? { errors: errors.map((e) => args.formatError(e.toJSON(), e)) } : {}),
  };
}

export const rootFieldCount = (operation: OperationDefinitionNode): number =>
  operation.selectionSet.selections.filter((s) => s.kind !== Kind.FIELD || s.name.value !== '__typename')
    .length;
