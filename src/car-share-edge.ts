// What the HTTP side does about a car share's state (CONTRACT §22, §23): a suspended car share is refused at the
// edge, and a car share's change makes its cached audit pages stale. Mounted by the composition root (src/app.ts),
// which alone reaches into rest-facade/ and so hands over the REST cache and the REST error writer.
import type Koa from 'koa';
import type { CarShareRegistry } from './carshares/registry.js';
import { PROBES } from './edge.js';
import { refuseSuspended, type SuspendedOptions } from './http/suspended.js';
import { INTERACTION_PATH } from './oauth/interaction.routes.js';
import { OAUTH_PATH } from './oauth/server.js';
import type { Logger } from './shared/log.js';

export interface CarShareEdgeDeps {
  carShares: Pick<CarShareRegistry, 'onChange'>;
  /** The REST facade's cache. */
  restCache: { invalidate(carShareId: string, tags: readonly string[]): Promise<void> };
  /** Writes the REST facade's error answer. */
  sendRest: SuspendedOptions['sendRest'];
  log: Logger;
}

/**
 * Listens to the registry's changes at once (before any request) and returns the middleware that refuses a request
 * to a suspended car share, for the caller to mount before its tokens, sessions or cached answers are looked at.
 */
export function carShareEdge(deps: CarShareEdgeDeps): Koa.Middleware {
  // A car share suspended or reactivated (here, by the platform, or at the console: every instance hears it) has a
  // new entry in its own audit trail: its cached trail pages are stale (CONTRACT §22).
  deps.carShares.onChange((id) => {
    deps.restCache
      .invalidate(id, ['AuditEntry'])
      .catch((err: unknown) =>
        deps.log.warn({ err, carShareId: id }, 'REST cache not told of a car share change'),
      );
  });
  return refuseSuspended({
    isProbe: (path) => PROBES.has(path),
    oauthPath: OAUTH_PATH,
    interactionPath: INTERACTION_PATH,
    sendRest: deps.sendRest,
  });
}
