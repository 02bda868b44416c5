// The API reference at /docs: /api/openapi.json rendered in the browser by Scalar's standalone bundle, served by
// the service itself. Its fonts, telemetry and request proxy are switched off and a Content-Security-Policy keeps
// every request on this origin.
import type Koa from 'koa';
import { type Asset, lazyFile, packageFile, serveAsset } from './asset.js';

export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; " +
  "base-uri 'none'; form-action 'self'; object-src 'none'";

const PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ' +
  'content="width=device-width,initial-scale=1"><title>Carshare API reference</title><link rel="icon" href="data:,"></head><body>' +
  '<noscript>The interactive reference needs JavaScript. The document itself: ' +
  '<a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</noscript>' +
  '<div id="reference"></div><script src="/docs/assets/scalar.js"></script>' +
  '<script src="/docs/assets/init.js"></script></body></html>';

// A separate file rather than an inline script, so the policy needs no 'unsafe-inline' for scripts. (The mount
// point is not `#api-reference`: the bundle would mount a second, unconfigured reference there by itself.)
// A help link (`#error-NotFound`, the `Meta.Help` of an error answer) is an address of ours that stays put whatever
// the renderer: it is turned into the renderer's own address of that code's heading in the Errors guide before the
// renderer reads it, on load and when only the fragment changes (a link followed from a page already open: the
// browser fires popstate, then hashchange). Registered before the renderer's own listeners, so they see the heading's
// address.
const HELP_LINKS = `function helpLink() {
  var m = /^#error-([A-Za-z0-9]+)$/.exec(location.hash);
  if (m) history.replaceState(null, '', '#description/' + m[1].toLowerCase());
}
helpLink();
addEventListener('popstate', helpLink);
addEventListener('hashchange', helpLink);
`;

const INIT = `${HELP_LINKS}Scalar.createApiReference('#reference', ${JSON.stringify({
  url: '/api/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  // An empty proxy: "Test request" calls the API from the page itself (same origin), never through a relay.
  proxyUrl: '',
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  defaultOpenFirstTag: false,
  documentDownloadType: 'json',
  theme: 'default',
})});\n`;

export function docs(): Koa.Middleware {
  const scalar = lazyFile(
    packageFile('@scalar/api-reference', 'browser/standalone.js'),
    'text/javascript; charset=utf-8',
  );
  const page: Asset = { type: 'text/html; charset=utf-8', body: PAGE };
  const init: Asset = { type: 'text/javascript; charset=utf-8', body: INIT };
  const files: Record<string, () => Asset> = {
    '/docs/assets/scalar.js': scalar,
    '/docs/assets/init.js': () => init,
  };
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/docs' || ctx.path === '/docs/') {
      ctx.set('Content-Security-Policy', DOCS_CSP);
      return serveAsset(ctx, page, 300);
    }
    const file = files[ctx.path];
    if (!file) return next();
    serveAsset(ctx, file());
  };
}
