// Static files of the browser tools (the API reference renderer, GraphiQL) served from installed npm packages,
// read once and answered with a strong ETag, so that nothing is fetched from elsewhere.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type Koa from 'koa';
import { markStaticAsset } from '../http/static-asset.js';

/** A file of an installed package, by a path relative to the folder of its main module. */
export function packageFile(pkg: string, relative: string): string {
  return join(dirname(fileURLToPath(import.meta.resolve(pkg))), relative);
}

export interface Asset {
  type: string;
  body: Buffer | string;
}

/**
 * Answers a GET with a file's bytes (gzipped once, when the client takes it), or 304 when it holds them. The ETag
 * names the car share too: one served by another car share never matches here (CONTRACT §20).
 */
export function serveAsset(ctx: Koa.Context, asset: Asset, maxAgeSeconds = 3600): void {
  markStaticAsset(ctx);
  // Only known files are served: their paths are the metrics' route labels (a closed set).
  ctx.state.route = ctx.path;
  const tag = etags.get(asset) ?? createHash('sha256').update(asset.body).digest('base64url').slice(0, 27);
  etags.set(asset, tag);
  // The bundles are megabytes of JavaScript: a fifth of that on the wire.
  const gzip = asset.body.length > 1024 && ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  ctx.vary('Accept-Encoding');
  ctx.set('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  ctx.set('X-Content-Type-Options', 'nosniff');
  const held = ctx.get('If-None-Match');
  const carShareId = (ctx.state.carShare as { id?: string } | undefined)?.id ?? '';
  const scoped = createHash('sha256').update(`${carShareId}:${tag}`).digest('base64url').slice(0, 27);
  const etag = gzip ? `"${scoped}-gz"` : `"${scoped}"`;
  ctx.set('ETag', etag);
  if (held === '*' || held.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = asset.type;
  if (!gzip) {
    ctx.body = asset.body;
    return;
  }
  let packed = gzipped.get(asset);
  if (!packed) {
    packed = gzipSync(asset.body);
    gzipped.set(asset, packed);
  }
  ctx.set('Content-Encoding', 'gzip');
  ctx.body = packed;
}
const etags = new WeakMap<Asset, string>();
const gzipped = new WeakMap<Asset, Buffer>();

/** Reads a file the first time it is asked for. */
export function lazyFile(path: string, type: string): () => Asset {
  let asset: Asset | undefined;
  return () => {
    asset ??= { type, body: readFileSync(path) };
    return asset;
  };
}
