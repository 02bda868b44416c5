// Serves the OpenAPI document, generated once from the route table on first request.
import type Koa from 'koa';
import { etagOf, matchesIfNoneMatch } from './cache.js';
import { openApiDocument } from './openapi.js';
import { send } from './respond.js';
import type { RouteTable } from './table.js';

export function referenceServer(table: RouteTable, base: string, prefix: string, guide?: string) {
  let json: string | undefined;
  return (ctx: Koa.Context) => {
    json ??= JSON.stringify(openApiDocument(table, base, prefix, guide));
    const etag = etagOf(json);
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      ETag: etag,
      'Cache-Control': 'public, max-age=300',
    };
    if (matchesIfNoneMatch(ctx.get('If-None-Match') || undefined, etag)) return send(ctx, 304, null, headers);
    send(ctx, 200, json, headers);
  };
}
