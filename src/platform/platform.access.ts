// Who may use the platform API (CONTRACT §22): only on the default car share's host (404 elsewhere, before anything
// else is looked at), only a caller the role rules call a platform actor there (src/access/platform.ts). The scope
// confers nothing else.
import { isPlatformActor } from '../access/platform.js';
import type { Context } from '../graphql/context.js';
import { DomainError, unauthorized } from '../shared/errors.js';

/** The scope of the platform API. */
export const PLATFORM_SCOPE = 'platform';

/** Refuses a platform operation: 404 on any host but the default's, 401 anonymous, 403 without the scope. */
export function requirePlatform(ctx: Pick<Context, 'carShare' | 'actor'>): void {
  if (!ctx.carShare.isDefault) throw new DomainError('NotFound', 'There is no platform API at this address');
  if (ctx.actor.kind === 'anonymous') throw unauthorized();
  if (!isPlatformActor(ctx.actor, ctx.carShare))
    throw new DomainError('Forbidden', 'The scope platform is needed to administer car shares', {
      meta: { Reason: 'InsufficientScope', RequiredScopes: [PLATFORM_SCOPE] },
    });
}
