// The one RFC 6750 challenge builder (CONTRACT §9): which status and WWW-Authenticate header an authentication or
// scope error gets, wherever an HTTP response is made: /graphql (src/access/challenge.ts), Koa's edge, and the REST
// facade, which is handed it with the error table (rest-facade imports nothing from src/).
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
