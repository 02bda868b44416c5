// The §13 and §28 limits at the GraphQL transports, before Apollo or graphql-ws parse and validate a document: a
// document over the size, expanded size, depth or cost limits must not even reach validation or compilation, whose
// work grows faster than the document.
import { type DocumentNode, type GraphQLError, type GraphQLSchema, parse } from 'graphql';
import type Koa from 'koa';
import { checkComplexity, checkExpansion, checkSize, type GraphQLLimits, tooComplex } from './limits.js';
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

/**
 * Documents by their text, so a client's same few documents are parsed here once. Bounded by count and by the
 * length of the texts held (a 64 KiB text can parse into ~15 MB of nodes; 128 KiB of texts stay within tens of
 * MB whatever their shape); oldest leave first.
 */
const PARSED_MAX = 500;
const PARSED_MAX_CHARS = 128 * 1024;
const parsedDocuments = new Map<string, DocumentNode>();
let parsedChars = 0;
function parsed(query: string): DocumentNode | undefined {
  let document = parsedDocuments.get(query);
  if (document) return document;
  try {
    document = parse(query);
  } catch (e) {
    if (e instanceof RangeError) throw e;
    return undefined;
  }
  if (query.length > PARSED_MAX_CHARS / 4) return document;
  while (parsedDocuments.size >= PARSED_MAX || parsedChars + query.length > PARSED_MAX_CHARS) {
    const oldest = parsedDocuments.keys().next().value!;
    parsedDocuments.delete(oldest);
    parsedChars -= oldest.length;
  }
  parsedDocuments.set(query, document);
  parsedChars += query.length;
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
    checkExpansion(schema, document);
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

/**
 * For callers in this process (the REST facade, the dashboard), before Apollo validates or anything compiles their
 * document: its size, as text and once its fragments are expanded. Their documents are the service's own, but the
 * bound holds on every path.
 */
export function sizeRefusalOf(
  schema: GraphQLSchema,
  document: string | DocumentNode,
): GraphQLError | undefined {
  try {
    if (typeof document === 'string') checkSize(document);
    const node = typeof document === 'string' ? parsed(document) : document;
    if (node) checkExpansion(schema, node);
    return undefined;
  } catch (e) {
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
