// The landing page at `/`: where a newcomer finds the reference, the dashboard, GraphQL and the OAuth discovery
// document; HTML for browsers, JSON with absolute links for `Accept: application/json`.
import type Koa from 'koa';
import type { CarShare } from '../carshares/car-share.js';
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

function page(name: string, links: ReturnType<typeof landingLinks>): string {
  const item = (href: string, label: string, what: string) =>
    `<li><a href="${escapeText(href)}">${escapeText(label)}</a> — ${what}</li>`;
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ' +
    `content="width=device-width,initial-scale=1"><title>${escapeText(name)}</title><link rel="icon" href="data:,"><style>${STYLE}</style></head><body>` +
    `<h1>${escapeText(name)}</h1><p>The car-sharing API: REST, GraphQL, OAuth 2.0 and webhooks.</p><ul>` +
    item(links.Docs, 'API reference', 'start here: <b>Getting started</b> and <b>Authentication</b>') +
    item(links.Dashboard, 'Dashboard', 'operators and registered applications') +
    item(links.GraphQL, 'GraphQL', 'GraphiQL in the browser; POST queries to the same URL') +
    item(links.OpenApi, 'OpenAPI document', 'the REST API, machine-readable (OpenAPI 3.1)') +
    item(links.OAuthDiscovery, 'OAuth discovery', 'the authorization server’s endpoints') +
    '</ul></body></html>'
  );
}

/** The page of each car share (its Name, links under its BaseUrl), made once per name and address. */
const pages = new Map<string, { links: ReturnType<typeof landingLinks>; html: string }>();

function pageOf(carShare: CarShare) {
  const key = `${carShare.name}\n${carShare.baseUrl}`;
  let p = pages.get(key);
  if (!p) {
    const links = landingLinks(carShare.baseUrl);
    p = { links, html: page(carShare.name, links) };
    if (pages.size >= 1000) pages.clear();
    pages.set(key, p);
  }
  return p;
}

export function landing(): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const carShare = ctx.state.carShare as CarShare;
    const { links, html } = pageOf(carShare);
    ctx.state.route = '/';
    ctx.set('Vary', 'Accept');
    ctx.set('Cache-Control', 'public, max-age=300');
    if (ctx.accepts('html', 'json') === 'json') {
      ctx.body = { Name: carShare.name, CarShareId: carShare.id, Links: links };
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  };
}
