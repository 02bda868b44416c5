// The forwarder behind `npm run webhooks -- listen`: the car share's events over graphql-ws (the `events`
// subscription), each POSTed to a local URL exactly as a delivery would be (the delivery engine's own body, headers
// and Standard Webhooks signature), so a receiver is developed against what production sends.
import { randomBytes, randomUUID } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import { Agent, type Dispatcher } from 'undici';
import { WebSocket } from 'ws';
import { serializeBody } from '../webhooks/fanout.js';
import { type AttemptResult, sendAttempt } from './send.js';

export interface ForwarderOptions {
  /** The service's origin (`PUBLIC_URL`); its graphql-ws endpoint is `/graphql` there. */
  origin: string;
  /** A CA the service's certificate is signed with (the default self-signed one); the system's otherwise. */
  ca?: string | undefined;
  /** A fresh access token allowed to read events, asked for on every (re)connection. */
  token(): Promise<string>;
  forwardTo: string;
  /** Event names to narrow to; every event when absent. */
  events?: readonly string[] | undefined;
  /** The `whsec_` secret deliveries are signed with. */
  secret: string;
  timeoutMs: number;
  userAgent: string;
  /** Told of every event forwarded, with the receiver's answer. */
  onForwarded(event: ForwardedEvent): void;
  /** Told when the connection is up (after every reconnection too). */
  onConnected(first: boolean): void;
  /** Told when the connection dropped after having been up; the forwarder reconnects by itself. */
  onDropped(code: number, reason: string): void;
  /** Told of an error that ends the forwarder: the first connection failed, or the service refused the subscription. */
  onFatal(message: string): void;
}

export interface ForwardedEvent {
  name: string;
  deliveryId: string;
  result: AttemptResult;
}

interface DomainEvent {
  name: string;
  payload: Record<string, unknown>;
}

const EVENTS = 'subscription($names: [String!]) { events(names: $names) { name occurredDateUtc payload } }';

export interface Forwarder {
  stop(): Promise<void>;
}

export function startForwarder(o: ForwarderOptions): Forwarder {
  // Stands for the subscription a delivery names in X-Webhook-Subscription-Id: one per run of the command.
  const subscriptionId = randomUUID();
  const dispatcher: Dispatcher = new Agent();
  const ca = o.ca;
  class TrustingWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, ca ? { ca } : {});
    }
  }
  let connectedOnce = false;
  let stopping = false;
  const client: Client = createClient({
    url: `${o.origin.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: TrustingWebSocket,
    connectionParams: async () => ({ Authorization: `Bearer ${await o.token()}` }),
    lazy: false,
    // Once connected, a service restarted meanwhile (npm run dev) is waited for; before that, failing is clearer.
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: () => connectedOnce,
    on: {
      connected: () => {
        o.onConnected(!connectedOnce);
        connectedOnce = true;
      },
      closed: (e) => {
        const { code, reason } = e as { code?: number; reason?: string };
        if (connectedOnce && !stopping) o.onDropped(code ?? 0, reason ?? '');
      },
    },
    onNonLazyError: (e) => o.onFatal(`could not connect to ${o.origin}/graphql: ${describe(e)}`),
  });

  const forward = async (e: DomainEvent): Promise<void> => {
    const deliveryId = randomBytes(16).toString('hex');
    const result = await sendAttempt(
      dispatcher,
      {
        url: o.forwardTo,
        deliveryId,
        subscriptionId,
        event: e.name,
        body: serializeBody(e.payload),
        secrets: [o.secret],
        timestamp: new Date(),
        userAgent: o.userAgent,
      },
      { timeoutMs: o.timeoutMs, allowPrivate: true },
    );
    o.onForwarded({ name: e.name, deliveryId, result });
  };

  const unsubscribe = client.subscribe<{ events: DomainEvent }>(
    { query: EVENTS, variables: { names: o.events ? [...o.events] : null } },
    {
      next: (r) => {
        if (r.errors?.length) return o.onFatal(r.errors.map((x) => x.message).join('; '));
        if (r.data) void forward(r.data.events);
      },
      error: (e) => {
        if (!connectedOnce || stopping) return; // before: reported by onNonLazyError
        o.onFatal(describe(e));
      },
      complete: () => undefined,
    },
  );

  return {
    async stop() {
      stopping = true;
      unsubscribe();
      await client.dispose();
      await dispatcher.close();
    },
  };
}

/** An error as the command line shows it: a GraphQL error list, a close event or an Error. */
function describe(e: unknown): string {
  if (Array.isArray(e)) return e.map((x) => (x as { message?: string }).message ?? String(x)).join('; ');
  if (e && typeof e === 'object' && 'code' in e && 'reason' in e)
    return `the connection closed (${(e as { code: number }).code} ${(e as { reason: string }).reason})`.trim();
  if (e instanceof Error) return e.message || String(e);
  const err = (e as { error?: Error } | null)?.error;
  return err?.message ?? String(e);
}
