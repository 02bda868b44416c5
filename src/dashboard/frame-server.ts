// One server of signed-in pages under a frame's base path (the dashboard, the platform console): its assets, the
// sign-in routes, a session store per authorization server, the security headers, and the 404 and 500 pages.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type Koa from 'koa';
import type { CarShare } from '../carshares/car-share.js';
import { markStaticAsset } from '../http/static-asset.js';
import { derivedSecret } from '../oauth/keys.js';
import type { OAuthSite } from '../oauth/site.js';
import { clientWentAway } from '../shared/client-gone.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { Execute } from './api.js';
import type { Frame } from './frame.js';
import { html } from './html.js';
import { createKit, type Kit } from './kit.js';
import { secure, send } from './layout.js';
import type { OAuthClient } from './oauth.js';
import { type Sessions, sessions } from './session.js';
import { serveSignIn } from './signin.js';
import type { DashboardSite } from './site.js';

type SiteOAuth = Pick<OAuthSite, 'carShare' | 'keys' | 'dashboard'>;

export interface DashboardDeps {
  /** The authorization server of a car share (its keys and first-party client), built at its first use. */
  siteFor(carShare: CarShare): Promise<SiteOAuth>;
  /** The self-signed certificate that ready-made curl commands must trust; none for a real certificate. */
  caFile?: string | undefined;
  /**
   * The local CA's certificate, which verifies car share hosts other than `localhost` (CONTRACT §19), once made;
   * none for a real certificate.
   */
  localCaFile?: string | undefined;
  clock: Clock;
  log: Logger;
  execute: Execute;
}

export interface FrameSpec {
  frame: Frame;
  /** What the session cookies' key is derived for (each frame its own). */
  sessionPurpose: string;
  /** The first-party client as this frame signs in with it (its redirect URI). */
  client(oauth: SiteOAuth): OAuthClient;
  /** Whether the frame is served at the request's car share; elsewhere its paths are left to what follows. */
  servedAt(carShare: CarShare): boolean;
  /** A path under the base that is not the frame's (the platform API under /platform/api). */
  excluded?(path: string): boolean;
  routes(router: Router, kit: Kit): void;
}

const assets = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
} as const;

export async function createFrameServer(deps: DashboardDeps, spec: FrameSpec): Promise<Koa.Middleware> {
  const { frame } = spec;
  const BASE = frame.base;
  const kit = createKit(deps);
  // Made once, when a car share first has a host other than `localhost`: read when first there.
  let localCa: X509Certificate | undefined;
  const readLocalCa = (): X509Certificate | undefined => {
    if (!localCa && deps.localCaFile)
      try {
        localCa = new X509Certificate(readFileSync(deps.localCaFile));
      } catch {
        return undefined;
      }
    return localCa;
  };
  // Which file verifies a host: `localhost` and addresses get the self-signed certificate, other hosts the CA's.
  const caFileFor = (host: string) =>
    host === 'localhost' || isIP(host) !== 0 ? deps.caFile : deps.caFile && deps.localCaFile;
  // One session store per authorization server built (its keys seal the cookies), forgotten with it.
  const stores = new WeakMap<object, Sessions>();
  const siteOf = async (carShare: CarShare): Promise<DashboardSite> => {
    const oauth = await deps.siteFor(carShare);
    let store = stores.get(oauth);
    if (!store) {
      const key = Buffer.from(derivedSecret(oauth.keys, spec.sessionPurpose), 'base64url');
      store = sessions(key, deps.clock, frame.cookie);
      stores.set(oauth, store);
    }
    const baseUrl = oauth.carShare.baseUrl;
    return {
      carShare,
      baseUrl,
      client: spec.client(oauth),
      sessions: store,
      frame,
      localCa: readLocalCa,
      caFile: caFileFor(new URL(baseUrl).hostname),
    };
  };
  const files = Object.fromEntries(
    Object.keys(assets).map((f) => [f, readFileSync(new URL(`./assets/${f}`, import.meta.url))]),
  );

  const router = new Router({ prefix: BASE });
  router.use(bodyParser({ enableTypes: ['form'], formLimit: '64kb' }));
  router.get('/assets/:file', (ctx) => {
    const file = ctx.params.file as keyof typeof assets;
    if (!Object.hasOwn(assets, file)) return;
    markStaticAsset(ctx);
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = assets[file];
    ctx.body = files[file];
  });
  serveSignIn(router, kit, { execute: deps.execute, clock: deps.clock });
  spec.routes(router, kit);
  const routes = router.routes();

  return async (ctx, next) => {
    if (ctx.path !== BASE && !ctx.path.startsWith(`${BASE}/`)) return next();
    const carShare = ctx.state.carShare as CarShare;
    if (!spec.servedAt(carShare) || spec.excluded?.(ctx.path)) return next();
    secure(ctx);
    ctx.state.frame = frame;
    try {
      ctx.state.dashboard = await siteOf(carShare);
      await routes(ctx as Parameters<typeof routes>[0], async () => undefined);
    } catch (err) {
      // A form cut short by a client that left: the edge's to count (499), not an error here.
      if (clientWentAway(err, ctx.req)) throw err;
      deps.log.error({ err, requestId: ctx.state.requestId }, `unexpected error in the ${frame.name}`);
      return send(
        ctx,
        {
          title: 'Something went wrong',
          body: html`<p>The ${frame.name} could not show this page because of an error on our side. Reload the page
to see what was saved; if it happens again, quote the request id <code>${String(ctx.state.requestId)}</code> to support.</p><p><a href="${BASE}">Back to the ${frame.name}</a></p>`,
        },
        500,
      );
    }
    if (ctx.status === 404 && ctx.body === undefined)
      send(
        ctx,
        {
          title: 'Page not found',
          body: html`<p>There is no such page. <a href="${BASE}">Go to the ${frame.name}</a>.</p>`,
        },
        404,
      );
  };
}
