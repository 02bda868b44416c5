// Revalidations answered in front of Koa (CONTRACT §10). A client polling a page sends back the ETag it holds, and
// the answer is a 304 read from the REST cache; the Koa chain spent most of such a request's time on itself
// (context objects, a dozen middleware, header bookkeeping: test/bench, S3). Here the same pieces do the same work
// in the same order: request id, token check, rate limit, the facade's cache, metrics, the log line, the same
// headers. Any request that needs more (another method, CORS, a miss, a changed representation, a refused token, a
// refused rate) goes on through Koa, with the caller already resolved so its token is checked once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator } from './access/authenticate.js';
import type { CarShare } from './carshares/car-share.js';
import { durationSince, type Edge } from './edge.js';
import { callerFor, type RequestCaller } from './http/caller.js';
import type { Metrics } from './metrics/metrics.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The REST facade's side (its `revalidation` and `notModified`): this file sees it only through app.ts. */
export interface CachedAnswers<R> {
  revalidation(request: {
    path: string;
    querystring: string;
    accept: string | undefined;
    ifNoneMatch: string;
  }): (R & { request: { path: string }; template: string }) | undefined;
  /** `heard`: the request passed the listening connection's barrier (the registry's `settled` said so). */
  notModified(r: R, caller: RequestCaller, heard: boolean): Promise<Record<string, string> | undefined>;
}

/** The rate limiter's counting (in memory, or in Redis in one round trip). */
export interface RateCounting {
  count(who: {
    method: string;
    path: string;
    ip: string;
    caller: RequestCaller;
    /** The car share addressed: its windows and its ceiling (CONTRACT §20). */
    carShare: CarShare;
  }): RateVerdict | Promise<RateVerdict>;
}

export interface RateVerdict {
  limit: number;
  remaining: number;
  reset: number;
  passed: boolean;
}

export interface NotModifiedDeps<R> {
  facade: CachedAnswers<R>;
  authenticator: Authenticator;
  rateLimiter: RateCounting;
  metrics: Pick<Metrics, 'arrived' | 'passedOn' | 'answered'>;
  edge: Pick<Edge, 'requestIdOf' | 'logRequest' | 'carShareOf'>;
  /** The car share of a host naming none (UNKNOWN_HOST=default); undefined leaves such requests to Koa. */
  defaultCarShare?: () => CarShare | undefined;
  trustProxy: boolean;
  /** Resolves once every change to a car share committed before the call is known (the registry's `settled`). */
  settled?: () => Promise<unknown>;
  /** Callers resolved here, for Koa's `identifyCaller` when the request goes on there. */
  callers: WeakMap<IncomingMessage, RequestCaller>;
  /** Requests counted here, for the rate limiter's middleware when the request goes on (its `countedOf`). */
  counted: WeakMap<IncomingMessage, RateVerdict>;
  /** Told about an error nothing here should throw (the connection is then cut, the process goes on). */
  onError(err: unknown): void;
}

/** The first of a comma-separated header's values (Node joins repeated proxy headers into one). */
const firstOf = (list: string | string[] | undefined): string =>
  typeof list === 'string' ? (list.split(',')[0]?.trim() ?? '') : '';

/** The listener: conditional GETs of cached routes are tried here first, everything else goes to `koa`. */
export function answeringNotModified<R>(deps: NotModifiedDeps<R>, koa: Listener): Listener {
  const { facade, rateLimiter, metrics, edge, trustProxy, callers } = deps;
  // The car share as the edge finds it; with UNKNOWN_HOST=default a host naming none is the default one's.
  const carShareOf = (host: string | undefined, forwarded: string | undefined) =>
    edge.carShareOf(host, forwarded) ?? deps.defaultCarShare?.();
  const ipOf = (req: IncomingMessage) =>
    (trustProxy ? firstOf(req.headers['x-forwarded-for']) : '') || req.socket.remoteAddress || '';

  const revalidate = async (
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
    r: R & { request: { path: string }; template: string },
  ) => {
    metrics.arrived();
    const h = req.headers;
    let caller: RequestCaller | undefined;
    let headers: Record<string, string> | undefined;
    let rate: RateVerdict | undefined;
    let heard = false;
    try {
      // The token is checked while the car shares settle, not after: a cached check waits for the same barrier
      // (one round trip on the listening connection for both, sent after this request arrived), where one after
      // the other cost each 304 a second round trip. The car share is read again once settled: any change to it
      // meanwhile leaves the request to Koa, which reads both afresh.
      const host = h.host;
      const forwarded = firstOf(h['x-forwarded-host']);
      const before = carShareOf(host, forwarded);
      if (!before) return passOn(req, res, undefined);
      const [passed, checked] = await Promise.all([
        deps.settled?.(),
        callerFor(deps.authenticator, h.authorization || undefined, before),
      ]);
      const carShare = carShareOf(host, forwarded);
      // A host naming no car share is left to Koa: it answers it (UNKNOWN_HOST); so is a suspended car share, which
      // it refuses before any cached answer (CONTRACT §23).
      if (carShare !== before || carShare.status === 'Suspended') return passOn(req, res, undefined);
      caller = checked;
      heard = passed === true;
      // The ETag and the count at once (with Redis: one round trip's time); a request that goes on to Koa after
      // all takes its verdict with it, so the rate limiter's middleware does not count it again.
      const who = { method: 'GET', path: r.request.path, ip: ipOf(req), caller, carShare: caller.carShare };
      [headers, rate] = await Promise.all([facade.notModified(r, caller, heard), rateLimiter.count(who)]);
    } catch {
      // Redis out of reach included: the request goes on to Koa, which serves it as it serves everything then.
      headers = undefined;
    }
    // A refusal is left to the middleware (its 429 body), with the verdict it was given here.
    if (!caller || !headers || !rate?.passed) return passOn(req, res, caller, rate);
    const { path } = r.request;
    const ip = ipOf(req);

    const requestId = edge.requestIdOf(typeof h['request-id'] === 'string' ? h['request-id'] : undefined);
    // The route's template, as the metrics middleware labels the same request through Koa.
    metrics.answered(r.template, 'GET', 304, started);
    edge.logRequest({
      requestId,
      method: 'GET',
      path,
      status: 304,
      durationMs: durationSince(started),
      ip,
      carShareId: caller.carShare.id,
    });
    res.writeHead(304, {
      'Request-Id': requestId,
      'RateLimit-Limit': String(rate.limit),
      'RateLimit-Remaining': String(rate.remaining),
      'RateLimit-Reset': String(rate.reset),
      ...headers,
    });
    res.end();
  };

  const passOn = (
    req: IncomingMessage,
    res: ServerResponse,
    caller: RequestCaller | undefined,
    rate?: RateVerdict,
  ) => {
    if (caller) callers.set(req, caller);
    if (rate) deps.counted.set(req, rate);
    metrics.passedOn();
    koa(req, res);
  };

  return (req, res) => {
    const h = req.headers;
    const ifNoneMatch = h['if-none-match'];
    const url = req.url ?? '/';
    if (
      req.method !== 'GET' ||
      ifNoneMatch === undefined ||
      // CORS headers, and the HTTPS-only refusal behind a proxy, are the chain's to write.
      h.origin !== undefined ||
      (trustProxy && firstOf(h['x-forwarded-proto']).toLowerCase() === 'http') ||
      url.includes('#')
    )
      return koa(req, res);
    const q = url.indexOf('?');
    let r: ReturnType<typeof facade.revalidation>;
    try {
      r = facade.revalidation({
        path: q < 0 ? url : url.slice(0, q),
        querystring: q < 0 ? '' : url.slice(q + 1),
        accept: h.accept,
        ifNoneMatch,
      });
    } catch (err) {
      deps.onError(err);
      r = undefined;
    }
    if (!r) return koa(req, res);
    revalidate(req, res, performance.now(), r).catch((err: unknown) => {
      deps.onError(err);
      res.destroy();
    });
  };
}
