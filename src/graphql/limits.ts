// The GraphQL limits of CONTRACT §13 and §28 applied to a request: document size (as text and once its fragments
// are expanded), introspection, depth and cost refused with `QueryTooComplex` before anything executes, and the execution gate entered with the document's cost.
import { type ApolloServerPlugin, type GraphQLResponse, HeaderMap } from '@apollo/server';
import { type DocumentNode, GraphQLError, type GraphQLSchema } from 'graphql';
import type { Context } from './context.js';
import { complexityOf } from './cost.js';
import type { Execution } from './execution.js';
import type { ExecutionGate } from './execution-gate.js';
import { type GateRefusal, isGateRefusal, refusalError } from './execution-lane.js';
import { expansionOf } from './expansion.js';
import { introspectionSizeOf } from './introspection.js';
import { MAX_NESTING, nestingOf } from './nesting.js';
import { nulRefusal } from './nul-input.js';
import { type FormatError, rootFieldCount } from './split-execution.js';

/** Documents longer than this are refused unread (validation costs grow faster than a document's size). */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

export interface GraphQLLimits {
  maxDepth: number;
  maxCost: number;
}

export const tooComplex = (message: string, meta?: Record<string, number>): GraphQLError =>
  new GraphQLError(message, {
    extensions: { code: 'QueryTooComplex', ...(meta ? { meta } : {}), http: { status: 400 } },
  });

/**
 * Texts already found within both bounds: the facade's and the dashboard's documents, and a client's repeated one,
 * are read once (a booking's document was read twice per request, about 80 µs: bench S5). Bounded by characters,
 * like the parse cache (limits.guard.ts), and emptied when full (at most 1 MB); a text is looked up by its hash,
 * which V8 keeps on the string.
 */
const withinBounds = new Set<string>();
let withinChars = 0;
const WITHIN_MAX_CHARS = 512 * 1024;

/** The document's text: at most 64 KiB, nesting at most MAX_NESTING brackets (before anything parses it). */
export function checkSize(source: string): void {
  if (withinBounds.has(source)) return;
  if (Buffer.byteLength(source) > MAX_DOCUMENT_BYTES)
    throw tooComplex(`The document is larger than ${MAX_DOCUMENT_BYTES / 1024} KiB`, {
      maxBytes: MAX_DOCUMENT_BYTES,
    });
  if (nestingOf(source) > MAX_NESTING)
    throw tooComplex(`The document nests more than ${MAX_NESTING} levels of brackets`, {
      maxNesting: MAX_NESTING,
    });
  if (withinChars + source.length > WITHIN_MAX_CHARS) {
    withinBounds.clear();
    withinChars = 0;
  }
  withinBounds.add(source);
  withinChars += source.length;
}

/** Field selections a document may hold once its fragments are expanded (CONTRACT §28). */
export const MAX_SELECTIONS = 10_000;
/** Introspection is exempt from depth and cost, so its root fields are counted instead (CONTRACT §28). */
export const MAX_SCHEMA_FIELDS = 1;
export const MAX_TYPE_FIELDS = 20;

/**
 * Refuses a document too large once its fragments are expanded, or asking for introspection too many times or at
 * too great a length; runs before validation and compilation (linear, expansion.ts; bounded, introspection.ts),
 * whose work grows with the expanded document.
 */
export function checkExpansion(schema: GraphQLSchema, document: DocumentNode): void {
  const { selections, schemas, types } = expansionOf(document);
  if (selections > MAX_SELECTIONS)
    throw tooComplex(
      `The document selects ${selections} fields once its fragments are expanded; at most ${MAX_SELECTIONS} are allowed`,
      { selections, maxSelections: MAX_SELECTIONS },
    );
  if (schemas > MAX_SCHEMA_FIELDS)
    throw tooComplex(`The document asks for __schema ${schemas} times; at most once is allowed`, {
      schemaFields: schemas,
      maxSchemaFields: MAX_SCHEMA_FIELDS,
    });
  if (types > MAX_TYPE_FIELDS)
    throw tooComplex(
      `The document asks for __type ${types} times; at most ${MAX_TYPE_FIELDS} times are allowed`,
      { typeFields: types, maxTypeFields: MAX_TYPE_FIELDS },
    );
  if (schemas + types === 0) return;
  const introspection = introspectionSizeOf(schema, document);
  if (introspection.size > introspection.max)
    throw tooComplex(
      `The document's introspection would answer more than ${introspection.max} values (four times the whole schema's); ask for the schema once`,
      { maxIntrospectionValues: introspection.max },
    );
}

/** The document's cost, or a `QueryTooComplex` error when it is over a limit. */
export function checkComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: GraphQLLimits,
  operationName?: string | null,
  variables?: Readonly<Record<string, unknown>> | null,
): number {
  const c = complexityOf(schema, document, operationName, variables);
  if (!c) return 0;
  if (c.depth > limits.maxDepth)
    throw tooComplex(
      `The document is nested ${c.depth} levels deep; at most ${limits.maxDepth} are allowed`,
      {
        depth: c.depth,
        maxDepth: limits.maxDepth,
      },
    );
  if (c.cost > limits.maxCost)
    throw tooComplex(
      `The document could return ${c.cost} objects; at most ${limits.maxCost} are allowed (lower limit arguments or split it)`,
      { cost: c.cost, maxCost: limits.maxCost },
    );
  return c.cost;
}

/** The answer to an execution the gate refused: 503 with `Retry-After`, nothing executed. */
const refusedResponse = (refusal: GateRefusal): GraphQLResponse => ({
  http: { status: 503, headers: new HeaderMap([['retry-after', String(refusal.retryAfterSeconds)]]) },
  body: { kind: 'single', singleResult: { errors: [refusalError(refusal)] } },
});

/**
 * Apollo: every operation (HTTP and in-process callers alike) is checked, then runs through the gate; a large
 * query of several root fields runs them one at a time. A refusal of the gate is the operation's answer.
 */
export function limitsPlugin(
  limits: GraphQLLimits,
  gate: ExecutionGate,
  execution: Pick<Execution, 'executeByRootField'>,
  formatError: FormatError,
): ApolloServerPlugin<Context> {
  // The gate's slot each request holds, by its request context. It is given back when the answer is sent, or when
  // Apollo gives up on the request because a hook threw after the slot was taken (`responseForOperation` and
  // what follows it are outside Apollo's error handling): then no hook of the request runs again, and only the
  // server-wide `unexpectedErrorProcessingRequest` hears of it.
  const held = new WeakMap<object, () => void>();
  const giveBack = (rc: object) => {
    const leave = held.get(rc);
    held.delete(rc);
    leave?.();
  };
  return {
    async requestDidStart() {
      let cost = 0;
      return {
        async didResolveOperation(rc) {
          checkSize(rc.source);
          checkExpansion(rc.schema, rc.document);
          const nul = nulRefusal(rc.document, rc.request.variables);
          if (nul) throw nul;
          cost = checkComplexity(rc.schema, rc.document, limits, rc.operationName, rc.request.variables);
        },
        async responseForOperation(rc) {
          let leave: () => void;
          try {
            leave = await gate.enter(cost, rc.contextValue.signal);
          } catch (e) {
            if (isGateRefusal(e)) return refusedResponse(e);
            throw e;
          }
          held.set(rc, leave);
          const { operation } = rc;
          if (!gate.isLarge(cost) || operation.operation !== 'query' || rootFieldCount(operation) < 2)
            return null;
          const result = await execution.executeByRootField({
            document: rc.document,
            operation,
            operationName: rc.operationName,
            variables: rc.request.variables,
            context: rc.contextValue,
            formatError,
            // Only an HTTP answer is spliced from text; in-process callers read the result's objects.
            asText: rc.request.http !== undefined,
          });
          return { http: rc.response.http, body: { kind: 'single', singleResult: result } };
        },
        async willSendResponse(rc) {
          giveBack(rc);
        },
      };
    },
    async unexpectedErrorProcessingRequest({ requestContext }) {
      giveBack(requestContext);
    },
  };
}
