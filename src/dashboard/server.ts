// The operators dashboard at /dashboard: server-rendered pages, a GraphQL client of this service signed in
// through the authorization server of the car share the request addresses, as that car share's own first-party
// client (CONTRACT §12, §21): only its operators sign in, and its links and redirects begin with its BaseUrl.
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
import { serveAuditPages } from './audit.routes.js';
import { serveBookingPages } from './bookings.routes.js';
import { serveCarPages } from './cars.routes.js';
import { serveClientAppPages } from './clientapps.routes.js';
import { html } from './html.js';
import { createKit } from './kit.js';
import { BASE, secure, send } from './layout.js';
import { type Sessions, sessions } from './session.js';
import { serveSignIn } from './signin.js';
import type { DashboardSite } from './site.js';
import { serveSummaryPages } from './summary.routes.js';
import { serveUserPages } from './users.routes.js';
import { serveVerificationPages } from './verifications.routes.js';
import { serveWebhookPages } from './webhooks.routes.js';

export interface DashboardDeps {
  /** The authorization server of a car share (its keys and first-party client), built at its first use. */
  siteFor(carShare: CarShare): Promise<Pick<OAuthSite, 'carShare' | 'keys' | 'dashboard'>>;
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

const assets = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
} as const;

export async function createDashboard(deps: DashboardDeps): Promise<Koa.Middleware> {
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
      store = sessions(Buffer.from(derivedSecret(oauth.keys, 'dashboard-session'), 'base64url'), deps.clock);
      stores.set(oauth, store);
    }
    const baseUrl = oauth.carShare.baseUrl;
    return {
      carShare,
      baseUrl,
      client: oauth.dashboard,
      sessions: store,
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
  serveSummaryPages(router, kit);
  serveClientAppPages(router, kit);
  serveWebhookPages(router, kit);
  serveVerificationPages(router, kit);
  serveUserPages(router, kit);
  serveCarPages(router, kit);
  serveBookingPages(router, kit);
  serveAuditPages(router, kit);
  const routes = router.routes();

  return async (ctx, next) => {
    if (ctx.path !== BASE && !ctx.path.startsWith(`${BASE}/`)) return next();
    secure(ctx);
    try {
      ctx.state.dashboard = await siteOf(ctx.state.carShare as CarShare);
      await routes(ctx as Parameters<typeof routes>[0], async () => undefined);
    } catch (err) {
      // A form cut short by a client that left: the edge's to count (499), not an error here.
      if (clientWentAway(err, ctx.req)) throw err;
      deps.log.error({ err, requestId: ctx.state.requestId }, 'unexpected error in the dashboard');
      return send(
        ctx,
        {
          title: 'Something went wrong',
          body: html`<p>The dashboard could not show this page because of an error on our side. Reload the page
to see what was saved; if it happens again, quote the request id <code>${String(ctx.state.requestId)}</code> to support.</p><p><a href="${BASE}">Back to the dashboard</a></p>`,
        },
        500,
      );
    }
    if (ctx.status === 404 && ctx.body === undefined)
      send(
        ctx,
        {
          title: 'Page not found',
          body: html`<p>There is no such page. <a href="${BASE}">Go to the dashboard</a>.</p>`,
        },
        404,
      );
  };
}
