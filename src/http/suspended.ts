// A suspended car share is refused at the edge (CONTRACT §23), before any token, session or cached answer is looked
// at, on every path but the probes: each surface in its own terms (REST's ResponseStatus in the negotiated format,
// GraphQL's errors, OAuth's access_denied, an HTML page for a browser). Nothing of the car share is touched, so its
// tokens, sessions and secrets work again once it is reactivated.
import type Koa from 'koa';
import type { CarShare } from '../carshares/car-share.js';

export const SUSPENDED_CODE = 'CarShareSuspended';
/** The close code of an open graphql-ws connection of a car share that is suspended (§23). */
export const SUSPENDED_CLOSE = 4403;

export const suspendedMessage = (carShare: Pick<CarShare, 'name'>): string =>
  `The car share ${carShare.name} is suspended: its service is unavailable until it is reactivated`;

export const isSuspended = (carShare: Pick<CarShare, 'status'> | undefined): boolean =>
  carShare?.status === 'Suspended';

const escapeHtml = (v: string): string => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page a browser is shown. */
export const suspendedPage = (carShare: Pick<CarShare, 'name'>): string =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">` +
  `<title>Suspended</title></head><body><h1>This car share is suspended</h1><p>${escapeHtml(
    suspendedMessage(carShare),
  )}.</p></body></html>`;

export interface SuspendedOptions {
  /** Paths that answer on every host whatever its car share (the probes). */
  isProbe(path: string): boolean;
  /** The authorization server's mount (`/api/oauth`) and, under it, its sign-in and consent pages. */
  oauthPath: string;
  interactionPath: string;
  /** The REST answer: ResponseStatus in the format the request negotiated. */
  sendRest(ctx: Koa.Context, code: typeof SUSPENDED_CODE, message: string): void;
}

const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

export function refuseSuspended(opts: SuspendedOptions): Koa.Middleware {
  return async (ctx, next) => {
    const carShare = ctx.state.carShare as CarShare | undefined;
    if (!carShare || !isSuspended(carShare) || opts.isProbe(ctx.path)) return next();
    const message = suspendedMessage(carShare);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 403;
    const browser = ctx.method === 'GET' && ctx.accepts('json', 'html') === 'html';
    if (under(ctx.path, opts.interactionPath) || (browser && !under(ctx.path, '/api'))) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = suspendedPage(carShare);
      return;
    }
    if (under(ctx.path, opts.oauthPath)) {
      ctx.type = 'application/json';
      ctx.body = { error: 'access_denied', error_description: message };
      return;
    }
    if (under(ctx.path, '/graphql')) {
      ctx.type = 'application/json';
      ctx.body = { errors: [{ message, extensions: { code: SUSPENDED_CODE } }] };
      return;
    }
    opts.sendRest(ctx, SUSPENDED_CODE, message);
  };
}

interface Closable {
  close(code: number, reason: string): void;
  once(event: 'close', fn: () => void): unknown;
}

/** The open WebSockets of each car share, so that suspending one closes its own (and only its own). */
export function socketsByCarShare() {
  const open = new Map<string, Set<Closable>>();
  return {
    add(carShareId: string, socket: Closable): void {
      const set = open.get(carShareId) ?? new Set();
      open.set(carShareId, set.add(socket));
      socket.once('close', () => {
        set.delete(socket);
        if (set.size === 0 && open.get(carShareId) === set) open.delete(carShareId);
      });
    },
    closeAll(carShareId: string, code: number, reason: string): void {
      for (const socket of open.get(carShareId) ?? []) socket.close(code, reason);
    },
  };
}
