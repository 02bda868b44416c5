// Turns a request's credentials into an Actor. The authorization server plugs its token check in here;
// resolvers only ever see the Actor.
import type { CarShare } from '../carshares/car-share.js';
import { unauthorized } from '../shared/errors.js';
import { type Actor, anonymous } from './actor.js';

/**
 * True when the request has already waited for the listening connection's barrier, sent after it arrived, and it
 * succeeded (the car share registry's `settled`): every revocation committed before the request is then known, and
 * a cached token check needs no barrier of its own (one round trip per request, not two one after the other).
 */
export type Heard = boolean;

export interface Authenticator {
  /**
   * `authorization` is the raw header value, if any; a token is checked in the car share the request addresses
   * (another car share's token is not valid there, CONTRACT §21). Throws Unauthorized for a bad token.
   */
  actorFor(authorization: string | undefined, carShare: CarShare, heard?: Heard): Promise<Actor>;
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
