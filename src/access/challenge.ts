// RFC 6750 answers (CONTRACT §9): which status and WWW-Authenticate challenge an authentication or scope error
// gets where an HTTP response is made: /graphql here, the REST facade and Koa's error handler through bearerChallenge.
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { isDomainError } from '../shared/errors.js';

export const REALM = 'carshare';

/** Unauthorized with this Reason means a token was sent and is not valid (as opposed to none sent). */
export const INVALID_TOKEN = 'InvalidToken';

export interface Challenge {
  status: 401 | 403;
  header: string;
}

const quoted = (v: string) => `"${v.replace(/["\\]/g, '')}"`;

/** The challenge for an error code and its meta, or undefined when the error is not about the token. */
export function bearerChallenge(code: unknown, meta?: Record<string, unknown> | null): Challenge | undefined {
  if (code === 'Unauthorized') {
    if (meta?.Reason !== INVALID_TOKEN) return { status: 401, header: `Bearer realm=${quoted(REALM)}` };
    return {
      status: 401,
      header: `Bearer realm=${quoted(REALM)}, error="invalid_token", error_description="The access token is invalid, expired or revoked"`,
    };
  }
  if (code === 'Forbidden' && meta?.Reason === 'InsufficientScope') {
    const needed = Array.isArray(meta.RequiredScopes) ? meta.RequiredScopes.join(' ') : '';
    return {
      status: 403,
      header: `Bearer realm=${quoted(REALM)}, error="insufficient_scope"${needed ? `, scope=${quoted(needed)}` : ''}`,
    };
  }
  return undefined;
}

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
