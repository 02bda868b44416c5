// Who may use the platform API (CONTRACT §22): only on the default car share's host (404 elsewhere, before anything
// else is looked at), only a caller whose token holds the scope `platform` there. The scope confers nothing else.
import type { Actor } from '../access/actor.js';
import type { CarShare } from '../carshares/car-share.js';
import type { Context } from '../graphql/context.js';
import { DomainError, unauthorized } from '../shared/errors.js';

/** The scope of the platform API. */
export const PLATFORM_SCOPE = 'platform';

/**
 * Whether an actor acts for the platform: it holds the scope `platform` in the default car share, as a client
 * application of it or as a person with the role `platform` (CONTRACT §22). The same shape as the role rules' own
 * check in src/access, which replaces this one when both are on main.
 */
export function isPlatformActor(actor: Actor, carShare: Pick<CarShare, 'isDefault'>): boolean {
  if (!carShare.isDefault || !(actor.scopes as readonly string[]).includes(PLATFORM_SCOPE)) return false;
  if (actor.kind === 'clientapplication') return actor.id !== null;
  return actor.kind === 'user' && (actor.roles as readonly string[]).includes('platform');
}

/** Refuses a platform operation: 404 on any host but the default's, 401 anonymous, 403 without the scope. */
export function requirePlatform(ctx: Pick<Context, 'carShare' | 'actor'>): void {
  if (!ctx.carShare.isDefault) throw new DomainError('NotFound', 'There is no platform API at this address');
  if (ctx.actor.kind === 'anonymous') throw unauthorized();
  if (!isPlatformActor(ctx.actor, ctx.carShare))
    throw new DomainError('Forbidden', 'The scope platform is needed to administer car shares', {
      meta: { Reason: 'InsufficientScope', RequiredScopes: [PLATFORM_SCOPE] },
    });
}
