// RFC 6750 answers (CONTRACT §9) on /graphql: a bad token while building the context, and operations refused for
// want of a token or a scope. The challenge itself is built in one place, src/shared/challenge.ts.
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { bearerChallenge } from '../shared/challenge.js';
import { isDomainError } from '../shared/errors.js';

/** A domain error thrown while building the GraphQL context (a bad token) as an HTTP 401 with its challenge. */
export function asHttpError(err: unknown): unknown {
  if (!isDomainError(err)) return err;
  const challenge = bearerChallenge(err.code, err.details.meta);
  if (!challenge) return err;
  return new GraphQLError(err.message, {
    extensions: {
      code: err.code,
      http: { status: challenge.status, headers: new Map([['www-authenticate', challenge.header]]) },
    },
  });
}

/**
 * /graphql over HTTP: when an operation produced no data because the caller was not authenticated or lacked a
 * scope, the response carries the RFC 6750 status and challenge (partial results stay 200).
 */
export function bearerChallengePlugin<C extends object>(): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse(rc) {
          const body = rc.response.body;
          if (body.kind !== 'single') return;
          const { data, errors } = body.singleResult;
          if (!errors?.length || (data && Object.values(data).some((v) => v !== null))) return;
          const ext = errors[0]?.extensions;
          // GraphQL spells meta keys in camelCase (`reason`); the domain's own spelling is PascalCase (`Reason`).
          const meta = Object.fromEntries(
            Object.entries((ext?.meta ?? {}) as Record<string, unknown>).map(([k, v]) => [
              k.charAt(0).toUpperCase() + k.slice(1),
              v,
            ]),
          );
          const challenge = bearerChallenge(ext?.code, meta);
          if (!challenge) return;
          rc.response.http.status = challenge.status;
          rc.response.http.headers.set('www-authenticate', challenge.header);
        },
      };
    },
  };
}
