// Serves the OpenAPI document of the request's car share (its `servers`, links and guide name its BaseUrl), made on
// its first request and kept for the most recently asked car shares.
import type Koa from 'koa';
import { etagOf, matchesIfNoneMatch } from './cache.js';
import { openApiDocument } from './openapi.js';
import { recentlyUsed } from './recent.js';
import { carShareOf, type RequestCarShare, send } from './respond.js';
import type { RouteTable } from './table.js';

/** Documents kept: each is some hundreds of KB, and few car shares ask for theirs at once. */
const KEPT = 16;

/** What a car share's generated documents depend on: its Id (in the ETag), its BaseUrl and its limits (the guide). */
export const documentKey = (c: RequestCarShare): string =>
  `${c.id}\n${c.baseUrl}\n${JSON.stringify(c.limits ?? {})}`;

export function referenceServer(
  table: RouteTable,
  prefix: string,
  guide?: (carShare: RequestCarShare) => string,
) {
  const made = recentlyUsed<{ json: string; etag: string }>(KEPT);
  return (ctx: Koa.Context) => {
    const carShare = carShareOf(ctx);
    const { json, etag } = made(documentKey(carShare), () => {
      const json = JSON.stringify(openApiDocument(table, carShare.baseUrl, prefix, guide?.(carShare)));
      return { json, etag: etagOf(json, carShare.id) };
    });
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      ETag: etag,
      'Cache-Control': 'public, max-age=300',
    };
    if (matchesIfNoneMatch(ctx.get('If-None-Match') || undefined, etag)) return send(ctx, 304, null, headers);
    send(ctx, 200, json, headers);
  };
}
