// Label values of the request metrics, each from a closed set whatever the requests (CONTRACT §28): a series per
// raw path or client-chosen name made /metrics grow with every junk request, and never shrink.
import { STATUS_CODES } from 'node:http';
import type Router from '@koa/router';
import type Koa from 'koa';
import { CLIENT_CLOSED } from '../shared/client-gone.js';

/** The route of a request nothing answered by a known route: 404s, junk, refusals before routing. */
export const UNMATCHED = 'unmatched';
/** A method, status or name outside its closed set. */
export const OTHER = 'other';

/** The route template of a path and method (`/api/cars/{Id}`), as the routers know it; undefined for none. */
export type TemplateOf = (method: string, path: string) => string | undefined;

/**
 * The route label: the template whoever answered named (`ctx.state.route`: the REST facade, the web pages), a
 * Koa router's matched route, else what `templateOf` makes of the path (requests refused before routing: 429s,
 * bad tokens, preflights), else `unmatched`. Never the raw path.
 */
export function routeLabel(ctx: Koa.Context, templateOf?: TemplateOf): string {
  const named = (ctx.state as { route?: unknown }).route;
  if (typeof named === 'string') return named;
  const c = ctx as unknown as { _matchedRoute?: unknown; mountPath?: unknown };
  if (typeof c._matchedRoute === 'string') {
    // A router inside an app mounted with koa-mount (the authorization server) names routes below the mount.
    const mount = c.mountPath;
    return typeof mount === 'string' && !c._matchedRoute.startsWith(mount)
      ? `${mount}${c._matchedRoute}`
      : c._matchedRoute;
  }
  return templateOf?.(ctx.method, ctx.path) ?? UNMATCHED;
}

/** The templates of Koa routers' routes (`/graphql`, `/healthz`), whatever the method, for `routeLabel`. */
export function routerTemplates(routers: readonly Router[]): TemplateOf {
  return (method, path) => {
    for (const router of routers) {
      const route = router.match(path, method).path.findLast((layer) => layer.methods.length > 0);
      if (typeof route?.path === 'string') return route.path;
    }
    return undefined;
  };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The method, or `other` for the rest of what Node's parser accepts (PROPFIND, MKCOL, …). */
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : OTHER);

const STATUSES = new Set([...Object.keys(STATUS_CODES).map(Number), CLIENT_CLOSED]);
/** The status, or `other` outside the statuses Node names and 499 (a client that went away, client-gone.ts). */
export const statusLabel = (status: number): string => (STATUSES.has(status) ? String(status) : OTHER);

/**
 * A closed set of names chosen by clients (GraphQL operation names): the first `max` seen keep their name, later
 * ones are `other`. Operators see their clients' operations; a client inventing names gets one series.
 */
export function firstNames(max: number): (name: string) => string {
  const known = new Set<string>();
  return (name) => {
    if (known.has(name)) return name;
    if (known.size >= max) return OTHER;
    known.add(name);
    return name;
  };
}
