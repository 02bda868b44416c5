// Serves the OpenAPI document, the /docs page and the TypeScript DTOs (/types/typescript), each generated once
// from the route table on first request.
import type Koa from 'koa';
import { etagOf, matchesIfNoneMatch } from './cache.js';
import { docsPage } from './docs.js';
import { API_VERSION, openApiDocument } from './openapi.js';
import { send } from './respond.js';
import type { RouteTable } from './table.js';
import { typeScriptDtos } from './typescript.js';

export type ReferenceKind = 'json' | 'html' | 'typescript';

const contentTypes = {
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  // What ServiceStack answers for /types/typescript.
  typescript: 'text/plain; charset=utf-8',
} as const satisfies Record<ReferenceKind, string>;

export function referenceServer(table: RouteTable, base: string, prefix: string) {
  let reference: Record<ReferenceKind, string> | undefined;
  return (ctx: Koa.Context, kind: ReferenceKind) => {
    if (!reference) {
      const doc = openApiDocument(table, base, prefix);
      reference = {
        json: JSON.stringify(doc),
        html: docsPage(doc),
        typescript: typeScriptDtos(table, base, prefix, API_VERSION),
      };
    }
    const body = reference[kind];
    const etag = etagOf(body);
    const headers = {
      'Content-Type': contentTypes[kind],
      ETag: etag,
      'Cache-Control': 'public, max-age=300',
    };
    if (matchesIfNoneMatch(ctx.get('If-None-Match') || undefined, etag)) return send(ctx, 304, null, headers);
    send(ctx, 200, body, headers);
  };
}
