// The §13 limits at the GraphQL transports, before Apollo or graphql-ws parse and validate a document: a
// document over the size, depth or cost limits must not even reach validation, whose work grows faster than
// the document.
import { type DocumentNode, type GraphQLError, type GraphQLSchema, parse } from 'graphql';
import type Koa from 'koa';
import { checkComplexity, checkSize, type GraphQLLimits, tooComplex } from './limits.js';
import { nulRefusal } from './nul-input.js';

interface GraphQLParams {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
}

const asObject = (v: unknown): Record<string, unknown> | undefined => {
  if (typeof v === 'string') {
    try {
      return asObject(JSON.parse(v));
    } catch {
      return undefined;
    }
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
};

/** Documents by their text, so a client's same few documents are parsed here once (bounded: oldest leave first). */
const PARSED_MAX = 500;
const parsedDocuments = new Map<string, DocumentNode>();
function parsed(query: string): DocumentNode | undefined {
  let document = parsedDocuments.get(query);
  if (document) return document;
  try {
    document = parse(query);
  } catch (e) {
    if (e instanceof RangeError) throw e;
    return undefined;
  }
  if (parsedDocuments.size >= PARSED_MAX) parsedDocuments.delete(parsedDocuments.keys().next().value!);
  parsedDocuments.set(query, document);
  return document;
}

/** The refusal for these parameters, if any; a document that does not parse is left to the transport. */
export function refusalOf(
  schema: GraphQLSchema,
  limits: GraphQLLimits,
  params: GraphQLParams,
): GraphQLError | undefined {
  if (typeof params.query !== 'string') return undefined;
  try {
    checkSize(params.query);
    const document = parsed(params.query);
    if (!document) return undefined;
    const name = typeof params.operationName === 'string' ? params.operationName : undefined;
    const variables = asObject(params.variables);
    checkComplexity(schema, document, limits, name, variables);
    return nulRefusal(document, variables);
  } catch (e) {
    // Nesting deep enough to exhaust the stack is too deep by any limit.
    if (e instanceof RangeError) return tooComplex('The document is nested too deeply');
    return e as GraphQLError;
  }
}

/** Koa, in front of Apollo on /graphql (after the body parser): 400 with the refusal, nothing executed. */
export function graphqlLimits(schema: GraphQLSchema, limits: GraphQLLimits): Koa.Middleware {
  return async (ctx, next) => {
    const params: GraphQLParams =
      ctx.method === 'GET'
        ? (ctx.query as GraphQLParams)
        : ((ctx.request as { body?: GraphQLParams }).body ?? {});
    const refusal = refusalOf(schema, limits, params);
    if (!refusal) return next();
    ctx.status = 400;
    ctx.type = 'application/json';
    const { http: _http, ...extensions } = refusal.extensions;
    ctx.body = { errors: [{ message: refusal.message, extensions }] };
  };
}
