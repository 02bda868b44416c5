// Who is calling, resolved once per request at the edge from the Authorization header and left on
// `ctx.state.caller`: the rate limits, the REST facade and /graphql all read it there, none reads the header again.
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { type Actor, anonymous } from '../access/actor.js';
import type { Authenticator, Heard } from '../access/authenticate.js';
import type { CarShare } from '../carshares/car-share.js';

/**
 * The actor, with the keys the REST facade uses (`subject` for rate limits, null when anonymous; `key` for the
 * per-caller cache). A refused token is kept as `refused`: the rate limits then count the request by IP, and
 * whoever needs the identity answers the refusal (401 with its challenge) where it always did.
 */
export interface RequestCaller {
  actor: Actor;
  /** The car share the request addresses (CONTRACT §19): the actor's, and the one its windows and cache are of. */
  carShare: CarShare;
  subject: string | null;
  key: string;
  refused?: unknown;
}

/** Who the rate limits count a caller as (CONTRACT §10: the token subject); null when anonymous. */
export const subjectOf = (actor: Actor): string | null => (actor.id ? `${actor.kind}:${actor.id}` : null);

/** The rate limits' subject of an actor in a car share (`RequestCaller.subject`), on every transport alike. */
export const callerSubjectOf = (actor: Actor, carShare: CarShare): string | null =>
  actor.id ? `${carShare.id}:${subjectOf(actor)}` : null;

// The keys name the car share: a caller's rate-limit windows and cached answers are its car share's (§20).
const callerOfActor = (actor: Actor, carShare: CarShare): RequestCaller => ({
  actor,
  carShare,
  subject: callerSubjectOf(actor, carShare),
  key: `${carShare.id}:${actor.kind}:${actor.id ?? ''}:${actor.roles.join(' ')}:${actor.scopes.join(' ')}`,
});

// A checked token's actor is the same object for as long as its check is cached: its keys are built once (per car
// share: the anonymous actor is one object for all of them).
const byActor = new WeakMap<CarShare, WeakMap<Actor, RequestCaller>>();

export async function callerFor(
  authenticator: Authenticator,
  authorization: string | undefined,
  carShare: CarShare,
  heard?: Heard,
): Promise<RequestCaller> {
  try {
    const actor = await authenticator.actorFor(authorization, carShare, heard);
    let callers = byActor.get(carShare);
    if (!callers) {
      callers = new WeakMap();
      byActor.set(carShare, callers);
    }
    let caller = callers.get(actor);
    if (!caller) {
      caller = callerOfActor(actor, carShare);
      callers.set(actor, caller);
    }
    return caller;
  } catch (refused) {
    return { actor: anonymous, carShare, subject: null, key: `${carShare.id}:`, refused };
  }
}

/**
 * The edge middleware: one token check per request, however many layers ask. `known` holds the callers already
 * resolved in front of Koa (a revalidation that turned out to need the full chain), so none is checked twice.
 */
export function identifyCaller(
  authenticator: Authenticator,
  known?: WeakMap<IncomingMessage, RequestCaller>,
): Koa.Middleware {
  return async (ctx, next) => {
    ctx.state.caller =
      known?.get(ctx.req) ??
      (await callerFor(
        authenticator,
        ctx.get('Authorization') || undefined,
        ctx.state.carShare as CarShare,
        ctx.state.heard === true,
      ));
    return next();
  };
}

/** The request's actor; throws the refusal of a bad token. */
export function actorOf(ctx: Koa.Context): Actor {
  const caller = ctx.state.caller as RequestCaller | undefined;
  if (!caller) throw new Error('no caller on the request: identifyCaller runs before anything that asks');
  if (caller.refused !== undefined) throw caller.refused;
  return caller.actor;
}
