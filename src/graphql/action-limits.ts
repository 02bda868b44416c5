// The rate limits at the GraphQL transports (CONTRACT §28): a document's mutation root fields counted one each
// before anything runs (/graphql: 429 and nothing executed; graphql-ws: an `error` message, the connection open),
// every graphql-ws operation counted, and at most 100 operations active on one connection.
import type { IncomingMessage } from 'node:http';
import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import { type DocumentNode, GraphQLError, parse } from 'graphql';
import type Koa from 'koa';
import type { CarShare } from '../carshares/car-share.js';
import { callerSubjectOf } from '../http/caller.js';
import type { Context } from './context.js';
import { MAX_DOCUMENT_BYTES } from './limits.js';
import { mutationRootFields } from './mutation-fields.js';

/**
 * The rate limiter's count of an operation's mutation root fields (rest-facade/ratelimit.actions.ts, handed over by
 * the composition root): `counted` when the transport has counted the operation once already (an HTTP request).
 */
export type CountActions = (
  who: { ip: string; subject: string | null; carShare: CarShare },
  fields: readonly string[],
  counted: boolean,
) => Promise<{
  passed: boolean;
  retryAfter: number;
  scope?: 'CarShare';
  own?: { remaining: number; reset: number };
}>;

/** Who a graphql-ws connection's operations are counted as: its token subject in the car share it addressed. */
export interface ConnectionSubject {
  subject: string | null;
  carShare: CarShare;
}

/** Operations (subscriptions, and queries still running) one graphql-ws connection may hold at once. */
export const MAX_ACTIVE_OPERATIONS = 100;

interface GraphQLParams {
  query?: unknown;
  operationName?: unknown;
}

/** A graphql-ws refusal (no HTTP header to carry Retry-After there: `retryAfterSeconds` says it). */
export const tooManyRequests = (message: string, retryAfter?: number): GraphQLError =>
  new GraphQLError(message, {
    extensions: { code: 'TooManyRequests', ...(retryAfter ? { retryAfterSeconds: retryAfter } : {}) },
  });

/** The mutation root fields of a graphql-ws operation; none for a query, or a document that does not parse. */
function mutationFieldsOf(params: GraphQLParams): string[] {
  const { query, operationName } = params;
  // Only a mutation has fields to count: a document without the word is not parsed here.
  if (typeof query !== 'string' || !query.includes('mutation')) return [];
  if (Buffer.byteLength(query) > MAX_DOCUMENT_BYTES) return []; // refused by the size limit, which runs too
  let document: DocumentNode;
  try {
    document = parse(query, { noLocation: true });
  } catch {
    return []; // the transport answers the syntax error (or the nesting) as it always does
  }
  return mutationRootFields(document, typeof operationName === 'string' ? operationName : undefined);
}

/**
 * Apollo, for /graphql: the request counted one already; its further mutation fields count here, once the
 * operation is known (through fragments, and for a persisted query sent by its hash alone) and before it runs.
 * The clients in this process carry no `clientIp` and are not counted again.
 */
export function actionLimitsPlugin(count: CountActions): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(rc) {
          const { clientIp, actor, carShare } = rc.contextValue;
          if (clientIp === undefined || rc.operation?.operation !== 'mutation') return;
          const fields = mutationRootFields(rc.document, rc.operationName);
          if (fields.length === 0) return;
          // The same subject as the HTTP request's own count (RequestCaller.subject), in the same car share.
          const subject = callerSubjectOf(actor, carShare);
          const verdict = await count({ ip: clientIp, subject, carShare }, fields, true);
          if (verdict.own) {
            rc.response.http.headers.set('ratelimit-remaining', String(verdict.own.remaining));
            rc.response.http.headers.set('ratelimit-reset', String(verdict.own.reset));
          }
          if (verdict.passed) return;
          const message = `Too many requests; retry in ${verdict.retryAfter} s`;
          throw new GraphQLError(message, {
            extensions: {
              code: 'TooManyRequests',
              http: { status: 429, headers: new HeaderMap([['retry-after', String(verdict.retryAfter)]]) },
            },
          });
        },
      };
    },
  };
}

/**
 * The rate limiter's 429 on /graphql, in the GraphQL shape (`errors[0].extensions.code`; `extensions.scope`
 * `CarShare` past the car share's ceiling); false elsewhere.
 */
export function graphqlTooManyRequests(path: string) {
  return (ctx: Koa.Context, message: string, retryAfter: number, scope?: 'CarShare'): boolean => {
    if (ctx.path !== path) return false;
    ctx.status = 429;
    ctx.type = 'application/json';
    ctx.set('Retry-After', String(retryAfter));
    // As formatError shapes the same refusal of a document's mutation fields (actionLimitsPlugin).
    const extensions = { code: 'TooManyRequests', errors: [], ...(scope ? { scope } : {}) };
    ctx.body = { errors: [{ message, extensions }] };
    return true;
  };
}

const firstOf = (list: string | string[] | undefined): string =>
  typeof list === 'string' ? (list.split(',')[0]?.trim() ?? '') : '';

/**
 * Counts a graphql-ws operation for the connection's caller, in the car share its upgrade addressed: one unit at
 * least, N for a mutation of N fields, and one against the car share's ceiling.
 */
export function operationLimits(count: CountActions, trustProxy: boolean) {
  return async (
    request: IncomingMessage,
    who: ConnectionSubject,
    payload: GraphQLParams,
  ): Promise<GraphQLError | undefined> => {
    const ip =
      (trustProxy ? firstOf(request.headers['x-forwarded-for']) : '') || request.socket.remoteAddress;
    const verdict = await count({ ip: ip ?? '', ...who }, mutationFieldsOf(payload), false);
    if (verdict.passed) return undefined;
    const to = verdict.scope ? ' to this car share' : '';
    return tooManyRequests(`Too many requests${to}; retry in ${verdict.retryAfter} s`, verdict.retryAfter);
  };
}

/** More than `max` operations in graphql-ws's map of a connection's operations (the new one included)? */
export function overActiveLimit(operations: Record<string, unknown>, max = MAX_ACTIVE_OPERATIONS): boolean {
  let n = 0;
  // Counted up to the limit only: a flood of subscribe messages must not make each check walk all of them.
  for (const _ in operations) if (++n > max) return true;
  return false;
}
