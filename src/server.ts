// The listeners: HTTPS (Koa + graphql-ws on /graphql) and the plain-HTTP listener that refuses everything.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { GraphQLSchema } from 'graphql';
import { GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { App } from './app.js';
import type { CarShare } from './carshares/car-share.js';
import { clientErrorAnswer, MAX_HEADER_BYTES } from './client-error.js';
import type { Config } from './config.js';
import { cutWebSocketsAfter, drainOf } from './drain.js';
import { httpsRequiredMessage } from './edge.js';
import {
  type ConnectionSubject,
  MAX_ACTIVE_OPERATIONS,
  overActiveLimit,
  tooManyRequests,
} from './graphql/action-limits.js';
import { refusalOf } from './graphql/limits.guard.js';
import { mutationRootFields } from './graphql/mutation-fields.js';
import { markAccepted, markArrived } from './http/arrival.js';
import { callerSubjectOf } from './http/caller.js';
import { crowdingOf } from './http/crowding.js';
import {
  isSuspended,
  SUSPENDED_CLOSE,
  SUSPENDED_CODE,
  socketsByCarShare,
  suspendedMessage,
} from './http/suspended.js';
import { type SniCallback, sniCertificates } from './local-ca.js';
import type { Logger } from './shared/log.js';
import { loadCertificate } from './tls.js';

export interface ListenOptions {
  host: string;
  port: number;
  httpPort: number;
  key: string;
  cert: string;
  /** The certificate of each other host named at the handshake (SNI); `key`/`cert` when absent or it gives none. */
  SNICallback?: SniCallback | undefined;
  /**
   * The default car share's `{base_url}` (PUBLIC_URL): what answers name when no car share can be told (a request
   * Node could not parse and that named no host in its TLS handshake, a host naming none with UNKNOWN_HOST=reject).
   */
  publicUrl: string;
}

export interface Listeners {
  port: number;
  httpPort: number;
  /** Stops accepting, lets in-flight requests finish, closes WebSockets. */
  close(): Promise<void>;
}

/** Shutdown: requests in flight get this long to finish; WebSocket peers this long to answer the goodbye. */
const HTTP_DRAIN_MS = 10_000;
const WS_DRAIN_MS = 3_000;
/** The largest WebSocket frame (message) read, as the largest HTTP body (CONTRACT §28, §13). */
const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * Connections the kernel holds completed for us while the event loop is busy (Node's default is 511; Linux caps it
 * at net.core.somaxconn). Past the queue the kernel drops the handshake's last ACK and the client retries after 1,
 * 3, 7 s: 1,000 clients arriving at once behind a loop busy with pages overflowed 511 (2,442 drops) and waited up to
 * 12 s for a page the service answered within 1 s of accepting it (test/bench/overload.ts, CONTRACT §28).
 */
const LISTEN_BACKLOG = 4096;

function listenOn(server: http.Server | https.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The refusal of a host naming no car share with UNKNOWN_HOST=reject (CONTRACT §19), for answers outside Koa. */
const unknownHost = (host: string | undefined) =>
  [`No car share is at ${host || 'this host'}`, { Reason: 'UnknownHost' }] as const;

/** The request's own id when it sent a usable one (as the edge takes it), else a new one. */
const requestIdOf = (req: http.IncomingMessage): string => {
  const given = req.headers['request-id'];
  return typeof given === 'string' && given.length <= 128 ? given : crypto.randomUUID();
};

export async function listen(app: App, schema: GraphQLSchema, opts: ListenOptions): Promise<Listeners> {
  let handler: ReturnType<App['callback']> | undefined;
  // The handler (revalidations, then Koa) is resolved on the first request, after every middleware has been added.
  const secure = https.createServer(
    {
      key: opts.key,
      cert: opts.cert,
      ...(opts.SNICallback ? { SNICallback: opts.SNICallback } : {}),
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    (req, res) => {
      markArrived(req, res);
      crowding.answer(res);
      secureDrain.track(res);
      handler ??= app.callback();
      return handler(req, res);
    },
  );
  const plain = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    plainDrain.track(res);
    // The plain-HTTP refusal names the car share's own address (CONTRACT §19), never the host as sent.
    const carShare = app.carShareOf(req);
    const a = carShare
      ? app.refusal(req, 'HttpsRequired', httpsRequiredMessage(carShare.baseUrl), undefined, carShare.baseUrl)
      : app.refusal(req, 'NotFound', ...unknownHost(req.headers.host), opts.publicUrl);
    res.writeHead(a.status, {
      ...a.headers,
      'Request-Id': requestIdOf(req),
      'Content-Length': Buffer.byteLength(a.body),
    });
    res.end(a.body);
  });
  // A request Node cannot parse has no Host to read; over TLS, the name the client asked for in its handshake (SNI)
  // tells its car share.
  const answerClientError = clientErrorAnswer(
    (socket) => app.baseUrlAt((socket as { servername?: unknown }).servername) ?? opts.publicUrl,
  );
  secure.on('connection', markAccepted);
  const crowding = crowdingOf(secure);
  secure.on('clientError', answerClientError);
  plain.on('clientError', answerClientError);
  const secureDrain = drainOf(secure);
  const plainDrain = drainOf(plain);

  // CONTRACT §28: a frame over 1 MiB closes the connection with 1009 as its header is read, before any of it is
  // parsed (ws's default would take 100 MiB, unauthenticated).
  const wss = new WebSocketServer({
    server: secure,
    path: '/graphql',
    maxPayload: MAX_FRAME_BYTES,
    verifyClient: (info, done) => void verify(info, done),
  });
  // CONTRACT §19: an upgrade to a host naming no car share (UNKNOWN_HOST=reject) is refused with 404; §23: a
  // suspended car share's with 403, once every change committed before it is known here.
  async function verify(
    info: { req: http.IncomingMessage },
    done: (ok: boolean, status?: number, message?: string, headers?: http.OutgoingHttpHeaders) => void,
  ): Promise<void> {
    await app.carShares.settled();
    const carShare = app.carShareOf(info.req);
    // CONTRACT §23: a suspended car share's upgrade is refused with 403 before it becomes a WebSocket.
    if (carShare && !isSuspended(carShare)) return done(true);
    const a = carShare
      ? app.refusal(info.req, SUSPENDED_CODE, suspendedMessage(carShare), undefined, carShare.baseUrl)
      : app.refusal(info.req, 'NotFound', ...unknownHost(info.req.headers.host), opts.publicUrl);
    done(false, a.status, a.body, { ...a.headers, 'Request-Id': requestIdOf(info.req) });
  }
  const openSockets = socketsByCarShare();
  // The token subject each connection was opened with, in its car share, for the rate limits (CONTRACT §20, §28).
  const subjects = new WeakMap<object, ConnectionSubject>();
  // The car share each connection's upgrade addressed (CONTRACT §19): every operation on it runs there.
  const carShares = new WeakMap<object, CarShare>();
  const ws = useServer<Record<string, unknown>>(
    {
      schema,
      onConnect: async (ctx) => {
        const auth = ctx.connectionParams?.Authorization ?? ctx.connectionParams?.authorization;
        try {
          // CONTRACT §8: a missing token closes the connection like a bad one.
          if (typeof auth !== 'string' || auth.trim() === '') throw new Error('no token');
          await app.carShares.settled();
          const carShare = app.carShareOf(ctx.extra.request);
          if (!carShare) throw new Error('no car share at this host');
          // Suspended between its upgrade and its connection_init.
          if (isSuspended(carShare)) {
            ctx.extra.socket.close(SUSPENDED_CLOSE, 'Car share suspended');
            return false;
          }
          carShares.set(ctx, carShare);
          const { actor } = await app.contextFor(auth, carShare);
          subjects.set(ctx, { subject: callerSubjectOf(actor, carShare), carShare });
          return true;
        } catch {
          ctx.extra.socket.close(4401, 'Unauthorized');
          return false;
        }
      },
      // CONTRACT §13 and §28: an operation over the limits or the rate limits gets an `error` message; the
      // connection stays open.
      onSubscribe: async (ctx, _id, payload) => {
        // Before any await: subscribe messages arriving together are each checked with those before them counted.
        const crowded = overActiveLimit(ctx.subscriptions);
        const who = subjects.get(ctx);
        if (!who) throw new Error('graphql-ws: an operation on a connection that was not accepted');
        const rate = await app.countOperation(ctx.extra.request, who, payload);
        if (rate) return [rate];
        if (crowded)
          return [tooManyRequests(`A connection holds at most ${MAX_ACTIVE_OPERATIONS} active operations`)];
        const refusal = refusalOf(schema, app.limits, payload);
        if (!refusal) return undefined;
        const { http: _http, ...extensions } = refusal.extensions;
        return [new GraphQLError(refusal.message, { extensions })];
      },
      // graphql-ws runs a mutation itself, outside Apollo: it makes the REST cache stale here, before its answer.
      onOperation: async (ctx, _id, _payload, args) => {
        const fields = mutationRootFields(args.document, args.operationName);
        const carShare = carShares.get(ctx);
        if (fields.length > 0 && carShare) await app.afterMutation(fields, carShare.id);
      },
      // Queries and mutations wait their turn at the execution gate, as on every other path (subscriptions hold no
      // execution: each event is small); every answer's errors are shaped and masked as /graphql's.
      execute: (args) => app.socket.execute(args),
      onNext: (_ctx, _id, _payload, args, result) => app.socket.onNext(args, result),
      onError: (_ctx, _id, _payload, errors) => app.socket.onError(errors),
      context: async (ctx) => {
        const auth = ctx.connectionParams?.Authorization ?? ctx.connectionParams?.authorization;
        const carShare = carShares.get(ctx);
        if (!carShare) throw new Error('graphql-ws: a connection without a car share');
        return app.contextFor(typeof auth === 'string' ? auth : undefined, carShare);
      },
    },
    wss,
  );

  // graphql-ws prints every socket error to stderr as an "internal error" of ours, with its stack. The errors ws
  // emits are the client's protocol faults (a frame over the limit, bad UTF-8), each already answered by closing
  // with its code (1009, 1007): its listener (registered before this one) gives way to one that ignores them.
  wss.on('connection', (socket, req) => {
    socket.removeAllListeners('error');
    socket.on('error', () => undefined);
    const carShare = app.carShareOf(req);
    if (carShare) openSockets.add(carShare.id, socket);
  });
  // CONTRACT §23: when a car share is suspended (here or, through its NOTIFY, on another instance), its open
  // connections close with 4403.
  app.carShares.onChange((id) => {
    if (isSuspended(app.carShares.byId(id))) openSockets.closeAll(id, SUSPENDED_CLOSE, 'Car share suspended');
  });

  const port = await listenOn(secure, opts.port, opts.host);
  const httpPort = await listenOn(plain, opts.httpPort, opts.host);

  return {
    port,
    httpPort,
    async close() {
      // WebSocket clients are told to go while HTTP drains; neither waits on the other.
      const stopCutting = cutWebSocketsAfter(wss, WS_DRAIN_MS);
      await Promise.all([ws.dispose(), secureDrain.close(HTTP_DRAIN_MS), plainDrain.close(HTTP_DRAIN_MS)]);
      stopCutting();
    },
  };
}

/**
 * HTTPS (and the plain-HTTP refusal, and graphql-ws) on the configured ports, with the configured certificate: the
 * given one for every host, or else the self-signed `localhost` one and, for each other host `isCarShareHost`
 * accepts, one issued by the local CA (`sni`, whose `localCa()` makes DATA_DIR/tls/ca.crt ahead of any handshake).
 */
export async function serve(
  app: App,
  schema: GraphQLSchema,
  config: Config,
  opts: { isCarShareHost(host: string): boolean; log: Logger },
) {
  const tls = await loadCertificate({
    dataDir: config.DATA_DIR,
    certFile: config.TLS_CERT,
    keyFile: config.TLS_KEY,
  });
  const sni = config.TLS_CERT
    ? undefined
    : sniCertificates({ dataDir: config.DATA_DIR, isCarShareHost: opts.isCarShareHost, log: opts.log });
  const listeners = await listen(app, schema, {
    host: config.HOST,
    port: config.PORT,
    httpPort: config.HTTP_PORT,
    key: tls.key,
    cert: tls.cert,
    SNICallback: sni,
    publicUrl: config.PUBLIC_URL,
  });
  return { tls, listeners, sni };
}
