// Who is calling, resolved once per request at the edge from the Authorization header and left on
// `ctx.state.caller`: the rate limits, the REST facade and /graphql all read it there, none reads the header again.
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { type Actor, anonymous } from '../access/actor.js';
import type { Authenticator } from '../access/authenticate.js';

/**
 * The actor, with the keys the REST facade uses (`subject` for rate limits, null when anonymous; `key` for the
 * per-caller cache). A refused token is kept as `refused`: the rate limits then count the request by IP, and
 * whoever needs the identity answers the refusal (401 with its challenge) where it always did.
 */
export interface RequestCaller {
  actor: Actor;
  subject: string | null;
  key: string;
  refused?: unknown;
}

/** Who the rate limits count a caller as (CONTRACT §10: the token subject); null when anonymous. */
export const subjectOf = (actor: Actor): string | null => (actor.id ? `${actor.kind}:${actor.id}` : null);

const callerOfActor = (actor: Actor): RequestCaller => ({
  actor,
  subject: subjectOf(actor),
  key: `${actor.kind}:${actor.id ?? ''}:${actor.roles.join(' ')}:${actor.scopes.join(' ')}`,
});

// A checked token's actor is the same object for as long as its check is cached: its keys are built once.
const byActor = new WeakMap<Actor, RequestCaller>();

export async function callerFor(
  authenticator: Authenticator,
  authorization: string | undefined,
): Promise<RequestCaller> {
  try {
    const actor = await authenticator.actorFor(authorization);
    let caller = byActor.get(actor);
    if (!caller) {
      caller = callerOfActor(actor);
      byActor.set(actor, caller);
    }
    return caller;
  } catch (refused) {
    return { actor: anonymous, subject: null, key: '', refused };
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
      known?.get(ctx.req) ?? (await callerFor(authenticator, ctx.get('Authorization') || undefined));
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
