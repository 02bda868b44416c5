// The listeners: HTTPS (Koa + graphql-ws on /graphql) and the plain-HTTP listener that refuses everything.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { GraphQLSchema } from 'graphql';
import { GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { App } from './app.js';
import { clientErrorAnswer, MAX_HEADER_BYTES } from './client-error.js';
import { cutWebSocketsAfter, drainOf } from './drain.js';
import { refusalOf } from './graphql/limits.guard.js';
import { responseStatus, statusOf } from './shared/errors.js';

export interface ListenOptions {
  host: string;
  port: number;
  httpPort: number;
  key: string;
  cert: string;
  /** The service's public origin, which error answers link to (`Meta.Help`). */
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

function listenOn(server: http.Server | https.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function listen(app: App, schema: GraphQLSchema, opts: ListenOptions): Promise<Listeners> {
  const httpsRequired = JSON.stringify(
    responseStatus(opts.publicUrl, 'HttpsRequired', 'This service is only available over HTTPS'),
  );
  let handler: ReturnType<App['callback']> | undefined;
  // The handler (revalidations, then Koa) is resolved on the first request, after every middleware has been added.
  const secure = https.createServer(
    { key: opts.key, cert: opts.cert, maxHeaderSize: MAX_HEADER_BYTES },
    (req, res) => {
      secureDrain.track(res);
      handler ??= app.callback();
      return handler(req, res);
    },
  );
  const plain = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    plainDrain.track(res);
    const requestId = req.headers['request-id'];
    res.writeHead(statusOf.HttpsRequired, {
      'Content-Type': 'application/json; charset=utf-8',
      'Request-Id':
        typeof requestId === 'string' && requestId.length <= 128 ? requestId : crypto.randomUUID(),
      'Content-Length': Buffer.byteLength(httpsRequired),
    });
    res.end(httpsRequired);
  });
  const answerClientError = clientErrorAnswer(opts.publicUrl);
  secure.on('clientError', answerClientError);
  plain.on('clientError', answerClientError);
  const secureDrain = drainOf(secure);
  const plainDrain = drainOf(plain);

  const wss = new WebSocketServer({ server: secure, path: '/graphql' });
  const ws = useServer<Record<string, unknown>>(
    {
      schema,
      onConnect: async (ctx) => {
        const auth = ctx.connectionParams?.Authorization ?? ctx.connectionParams?.authorization;
        try {
          // CONTRACT §8: a missing token closes the connection like a bad one.
          if (typeof auth !== 'string' || auth.trim() === '') throw new Error('no token');
          await app.contextFor(auth);
          return true;
        } catch {
          ctx.extra.socket.close(4401, 'Unauthorized');
          return false;
        }
      },
      // CONTRACT §13: an operation over the limits gets an `error` message; the connection stays open.
      onSubscribe: (_ctx, _id, payload) => {
        const refusal = refusalOf(schema, app.limits, payload);
        if (!refusal) return undefined;
        const { http: _http, ...extensions } = refusal.extensions;
        return [new GraphQLError(refusal.message, { extensions })];
      },
      context: async (ctx) => {
        const auth = ctx.connectionParams?.Authorization ?? ctx.connectionParams?.authorization;
        return app.contextFor(typeof auth === 'string' ? auth : undefined);
      },
    },
    wss,
  );

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
