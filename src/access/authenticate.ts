// Turns a request's credentials into an Actor. The authorization server plugs its token check in here;
// resolvers only ever see the Actor.
import { unauthorized } from '../shared/errors.js';
import { type Actor, anonymous } from './actor.js';

export interface Authenticator {
  /** `authorization` is the raw header value, if any. Throws Unauthorized for a bad token. */
  actorFor(authorization: string | undefined): Promise<Actor>;
}

export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!m) throw unauthorized('The Authorization header must be "Bearer <access token>"');
  return m[1];
}

/** Until tokens are issued, no bearer token can be valid: requests are anonymous or refused. */
export const noTokens: Authenticator = {
  async actorFor(authorization) {
    if (bearerToken(authorization) !== undefined) throw unauthorized('The access token is not valid');
    return anonymous;
  },
};
