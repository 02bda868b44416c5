// The landing page at `/`: where a newcomer finds the reference, the dashboard, GraphQL and the OAuth discovery
// document; HTML for browsers, JSON with absolute links for `Accept: application/json`.
import type Koa from 'koa';
import { trimEnd } from '../shared/trim.js';

const escapeText = (v: string): string => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function landingLinks(publicUrl: string) {
  const base = trimEnd(publicUrl, '/');
  return {
    Docs: `${base}/docs`,
    OpenApi: `${base}/api/openapi.json`,
    GraphQL: `${base}/graphql`,
    OAuthDiscovery: `${base}/api/oauth/.well-known/openid-configuration`,
    Dashboard: `${base}/dashboard`,
  } as const;
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:3em auto;max-width:44em;padding:0 1em;color:#222}' +
  'a{color:#0b57d0}li{margin:.4em 0}code{background:#f3f3f3;padding:0 .2em;border-radius:3px}';

function page(links: ReturnType<typeof landingLinks>): string {
  const item = (href: string, label: string, what: string) =>
    `<li><a href="${escapeText(href)}">${escapeText(label)}</a> — ${what}</li>`;
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ' +
    `content="width=device-width,initial-scale=1"><title>Carshare</title><link rel="icon" href="data:,"><style>${STYLE}</style></head><body>` +
    '<h1>Carshare</h1><p>The car-sharing API: REST, GraphQL, OAuth 2.0 and webhooks.</p><ul>' +
    item(links.Docs, 'API reference', 'start here: <b>Getting started</b> and <b>Authentication</b>') +
    item(links.Dashboard, 'Dashboard', 'operators and registered applications') +
    item(links.GraphQL, 'GraphQL', 'GraphiQL in the browser; POST queries to the same URL') +
    item(links.OpenApi, 'OpenAPI document', 'the REST API, machine-readable (OpenAPI 3.1)') +
    item(links.OAuthDiscovery, 'OAuth discovery', 'the authorization server’s endpoints') +
    '</ul></body></html>'
  );
}

export function landing(publicUrl: string): Koa.Middleware {
  const links = landingLinks(publicUrl);
  const html = page(links);
  return async (ctx, next) => {
    if (ctx.path !== '/' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.state.route = '/';
    ctx.set('Vary', 'Accept');
    ctx.set('Cache-Control', 'public, max-age=300');
    if (ctx.accepts('html', 'json') === 'json') {
      ctx.body = { Name: 'Carshare', Links: links };
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  };
}
