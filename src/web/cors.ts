// Cross-origin access for browser applications (CORS_ORIGINS): preflights on the API, GraphQL and the token
// endpoint, and on every answer to an allowed origin the headers a script must be allowed to read. Without it, or for an origin not listed, responses
// carry no CORS header at all, including those the authorization server would add on its own.
import type Koa from 'koa';
import { trimEnd } from '../shared/trim.js';

const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'If-None-Match',
  'If-Match',
  'Request-Id',
  'apollo-require-preflight',
  'X-Apollo-Operation-Name',
] as const;
const EXPOSE_HEADERS = [
  'ETag',
  'Location',
  'Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'WWW-Authenticate',
  'Allow',
  'Content-Disposition',
] as const;
const MAX_AGE_SECONDS = 600;

/** `*`, or the listed origins: `https://app.example.com, http://localhost:5173`. */
export function parseCorsOrigins(value: string | undefined): '*' | ReadonlySet<string> | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (v === '*') return '*';
  return new Set(
    v
      .split(',')
      .map((o) => trimEnd(o.trim(), '/'))
      .filter(Boolean),
  );
}

const covered = (path: string) => path === '/graphql' || path === '/api' || path.startsWith('/api/');

function stripCors(ctx: Koa.Context): void {
  for (const name of Object.keys(ctx.response.headers))
    if (name.toLowerCase().startsWith('access-control-')) ctx.remove(name);
}

export function cors(origins: string | undefined): Koa.Middleware {
  const allowed = parseCorsOrigins(origins);
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    const ok = Boolean(allowed && origin && (allowed === '*' || allowed.has(origin)));
    if (!ok) {
      // The authorization server sets its own CORS headers on some endpoints; here CORS is off for this caller.
      try {
        await next();
      } finally {
        stripCors(ctx);
      }
      return;
    }
    const allowOrigin = allowed === '*' ? '*' : origin;
    if (allowed !== '*') ctx.vary('Origin');
    // Preflights are answered for what a browser application calls: the API, GraphQL and the token endpoint.
    if (ctx.method === 'OPTIONS' && covered(ctx.path)) {
      ctx.set('Access-Control-Allow-Origin', allowOrigin);
      ctx.set('Access-Control-Allow-Methods', METHODS);
      ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS.join(', '));
      ctx.set('Access-Control-Max-Age', String(MAX_AGE_SECONDS));
      ctx.status = 204;
      return;
    }
    ctx.set('Access-Control-Allow-Origin', allowOrigin);
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS.join(', '));
    await next();
    // Downstream code may have replaced them (the authorization server's own CORS); the answer stays this one.
    ctx.set('Access-Control-Allow-Origin', allowOrigin);
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS.join(', '));
    ctx.remove('Access-Control-Allow-Credentials');
  };
}
