// Serves the OpenAPI document and the /docs page, generated once from the route table on first request.
import type Koa from 'koa';
import { etagOf, matchesIfNoneMatch } from './cache.js';
import { docsPage } from './docs.js';
import { openApiDocument } from './openapi.js';
import { send } from './respond.js';
import type { RouteTable } from './table.js';

export function referenceServer(table: RouteTable, base: string, prefix: string) {
  let reference: { json: string; html: string } | undefined;
  return (ctx: Koa.Context, kind: 'json' | 'html') => {
    if (!reference) {
      const doc = openApiDocument(table, base, prefix);
      reference = { json: JSON.stringify(doc), html: docsPage(doc) };
    }
    const body = reference[kind];
    const etag = etagOf(body);
    const headers = {
      'Content-Type': kind === 'json' ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
      ETag: etag,
      'Cache-Control': 'public, max-age=300',
    };
    if (matchesIfNoneMatch(ctx.get('If-None-Match') || undefined, etag)) return send(ctx, 304, null, headers);
    send(ctx, 200, body, headers);
  };
}
