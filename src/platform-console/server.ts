// The platform console at {PUBLIC_URL}/platform (CONTRACT §22): the dashboard's signed-in pages in a frame of their
// own, on the default car share's host only, signed in through its issuer with scope `platform` as its first-party
// client (the console's own callback). Only people with role `platform` get past the sign-in.
import type Koa from 'koa';
import type { Frame } from '../dashboard/frame.js';
import { createFrameServer, type DashboardDeps } from '../dashboard/frame-server.js';
import { html } from '../dashboard/html.js';
import { CONSOLE_CALLBACK_PATH } from '../oauth/first-party.js';
import { servePlatformAudit } from './audit.routes.js';
import { serveCarShareActions } from './car-share.actions.js';
import { serveCarSharePages } from './car-shares.routes.js';

export const BASE = '/platform';
/** The platform API lives beneath the console's path; its requests are not the console's. */
const API = '/platform/api';

export const CONSOLE: Frame = {
  base: BASE,
  name: 'console',
  brand: 'Carshare platform',
  navLabel: 'Platform console',
  sections: [
    { key: 'carshares', path: BASE, label: 'Car shares' },
    { key: 'new', path: `${BASE}/new`, label: 'New car share' },
    { key: 'audit', path: `${BASE}/audit`, label: 'Platform audit' },
  ],
  scope: 'platform',
  role: 'platform',
  // `platform` confers nothing else (CONTRACT §22): reading one's own account, to name who is signed in, is its own.
  ask: 'platform account:read',
  cookie: 'carshare-platform',
  denied: {
    title: 'This console is for the platform’s people',
    text: (who) => html`<p>You signed in${who}, but the account does not have
the platform role, so the platform console cannot be used with it. Its tokens were revoked.</p>`,
  },
};

export const createPlatformConsole = (deps: DashboardDeps): Promise<Koa.Middleware> =>
  createFrameServer(deps, {
    frame: CONSOLE,
    sessionPurpose: 'platform-console-session',
    // The default car share's first-party client, returning to the console's own callback.
    client: (oauth) => ({
      ...oauth.dashboard,
      redirectUri: `${oauth.carShare.baseUrl}${CONSOLE_CALLBACK_PATH}`,
    }),
    servedAt: (carShare) => carShare.isDefault,
    excluded: (path) => path === API || path.startsWith(`${API}/`),
    routes(router, kit) {
      serveCarSharePages(router, kit);
      serveCarShareActions(router, kit);
      servePlatformAudit(router, kit);
    },
  });
