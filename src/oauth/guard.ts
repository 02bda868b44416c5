// The authorization server's edge (CONTRACT §13): bodies over 1 MiB are 413, and a NUL in any parameter is
// `invalid_request`, both with the OAuth error body, before oidc-provider or the sign-in pages read anything.
import { parse as parseQuery } from 'node:querystring';
import type Koa from 'koa';

const BODY_LIMIT = 1024 * 1024;

const oauthError = (ctx: Koa.Context, status: number, description: string) => {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'invalid_request', error_description: description };
};

class TooLarge extends Error {}

/** Stops reading at the limit without destroying the request, so the client still gets the 413 (Node drains the rest). */
async function readBody(req: Koa.Context['req']): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT) throw new TooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw new TooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The first parameter whose name or value holds U+0000, at any depth of a parsed JSON body. */
function nulParameter(value: unknown, name: string): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? name : undefined;
  if (Array.isArray(value)) return value.map((v) => nulParameter(v, name)).find((n) => n !== undefined);
  if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\0')) return k.replaceAll('\0', '');
      const found = nulParameter(v, k);
      if (found) return found;
    }
  return undefined;
}

/**
 * The body is read here once: the sign-in pages get it parsed (their body parser then does nothing), and
 * oidc-provider reads the same bytes again from the request, which is made readable once more.
 */
export function oauthGuard(path: string): Koa.Middleware {
  return async (ctx, next) => {
    if (!(ctx.path === path || ctx.path.startsWith(`${path}/`))) return next();
    const inQuery = nulParameter(parseQuery(ctx.querystring), 'query');
    if (inQuery) return oauthError(ctx, 400, `${inQuery} must not contain NUL characters`);
    if (!ctx.req.headers['content-length'] && !ctx.req.headers['transfer-encoding']) return next();
    let raw: Buffer;
    try {
      raw = await readBody(ctx.req);
    } catch (e) {
      if (e instanceof TooLarge) return oauthError(ctx, 413, 'The request body is larger than 1 MiB');
      throw e;
    }
    const text = raw.toString('utf8');
    let parsed: unknown;
    if (ctx.is('application/json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    } else if (ctx.is('application/x-www-form-urlencoded')) parsed = parseQuery(text);
    const inBody = nulParameter(parsed ?? text, 'body');
    if (inBody) return oauthError(ctx, 400, `${inBody} must not contain NUL characters`);
    if (parsed !== undefined && ctx.is('application/x-www-form-urlencoded'))
      ctx.request.body = { ...(parsed as object) };
    replay(ctx.req, raw);
    await next();
  };
}

/** Makes a consumed request readable again with the same bytes (what oidc-provider's body reader asks of it). */
function replay(req: Koa.Context['req'], raw: Buffer): void {
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'readableEncoding', { value: null, configurable: true });
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: async function* () {
      if (raw.length > 0) yield raw;
    },
  });
}
