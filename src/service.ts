// Starts and stops the whole service: database, GraphQL, listeners and background timers.
import type { Authenticator } from './access/authenticate.js';
import { CHANNEL as TOKEN_CHANNEL, TokenCache } from './access/token.cache.js';
import { createApp } from './app.js';
import { bootstrap } from './bootstrap.js';
import { ensureDefaultCarShare } from './carshares/default-car-share.js';
import { CAR_SHARE_CHANNEL, openCarShareRegistry } from './carshares/registry.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { watchPool } from './db/pool.metrics.js';
import {
  type DeliveryOptions,
  type DeliveryRuntime,
  deliverySettings,
  startDelivery,
} from './delivery/delivery.runtime.js';
import { type EventBus, localBus, redisBus } from './events/bus.js';
import { type Listener, listenForWork } from './events/listen.js';
import { type OutboxRelay, startOutboxRelay } from './events/relay.js';
import type { GateOptions } from './graphql/execution-gate.js';
import { buildSchema } from './graphql/schema.js';
import { redisKeys } from './http/redis-keys.js';
import { localCaCertPath } from './local-ca.js';
import { type MallocTrimming, startMallocTrim } from './malloc-trim.js';
import { createMetrics } from './metrics/metrics.js';
import { composeModules, entities, type ModuleSettings } from './modules.js';
import { type AuthServer, createAuthServer } from './oauth/server.js';
import { serve } from './server.js';
import { type Clock, systemClock } from './shared/clock.js';
import type { Logger } from './shared/log.js';
import { startSweeps } from './sweeps.js';
import { selfSignedCertShown } from './tls.js';
import { fanOutBatch } from './webhooks/fanout.js';

export interface Service {
  port: number;
  httpPort: number;
  cert: string;
  certPath: string;
  db: Database;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  config: Config;
  log: Logger;
  clock?: Clock;
  authenticator?: Authenticator;
  /** An already open database (tests); otherwise the configured one is opened and closed with the service. */
  db?: Database;
  /** Background sweeps (verification expiry, booking timers); off in tests, which run them with their own clock. */
  timers?: boolean;
  /**
   * Webhook delivery workers: on with the timers unless given. Tests pass overrides (a fast retry schedule, short
   * polls, a CA for their receivers) or `false`. The outbox relay (fan-out, the event bus) runs either way.
   */
  webhooks?:
    | Partial<Omit<DeliveryOptions, 'orm' | 'databaseUrl' | 'clock' | 'log' | 'metrics' | 'changed'>>
    | false;
  /** How often the background sweeps run (tests that move their clock want them soon); their defaults otherwise. */
  sweepEveryMs?: number;
  /** Execution gate sizes other than the service's own (tests: tiny lanes and a short wait, to overload it). */
  gate?: Partial<GateOptions>;
}

export async function startService(opts: ServiceOptions): Promise<Service> {
  const { config, log } = opts;
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS)
    log.warn(
      { setting: 'WEBHOOK_ALLOW_PRIVATE_TARGETS' },
      'WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhook subscriptions may reach plain http and private addresses ' +
        '(loopback, the local network, cloud metadata). For development and tests only; ' +
        '`npm run webhooks -- listen` reaches a local receiver without it.',
    );
  const clock = opts.clock ?? systemClock;
  const db = opts.db ?? (await openConfiguredDatabase(config, log));
  const ownsDb = !opts.db;
  let auth: AuthServer | undefined;
  let bus: EventBus | undefined;
  let relay: OutboxRelay | undefined;
  let mallocTrim: MallocTrimming | undefined;
  let delivery: DeliveryRuntime | undefined;
  let listener: Listener | undefined;
  try {
    await ensureDefaultCarShare(db.orm, {
      publicUrl: config.PUBLIC_URL,
      defaultName: config.DEFAULT_CAR_SHARE_NAME,
    });
    const carShares = await openCarShareRegistry(db.orm, config.PUBLIC_URL);
    // What a process keeps for a car share (its authorization server) is built again after a change to it.
    carShares.onChange((id) => auth?.forget(id));
    // The instance's one listening connection (PostgreSQL wakes each listening connection at every NOTIFY): what
    // every request must have heard before it is answered, changes to car shares (suspension, CONTRACT §23) and
    // revoked tokens (§21), both waiting on its one barrier per turn; and the outbox relay's and the deliveries'
    // wake-ups, added below.
    const tokens = new TokenCache();
    listener = listenForWork(
      db.url,
      {
        [CAR_SHARE_CHANNEL]: () =>
          void carShares.refresh().catch((err: unknown) => log.warn({ err }, 'car shares not reloaded')),
        [TOKEN_CHANNEL]: (payload) => tokens.heard(payload),
      },
      log,
    );
    const heard = listener;
    carShares.listenWith(() => heard.sync());
    tokens.heardBy(() => heard.sync());
    await bootstrap(db.orm, {
      carShare: carShares.default,
      email: config.OPS_EMAIL,
      password: config.OPS_PASSWORD,
      oauth: true,
      clock,
      log,
    });
    auth = await createAuthServer({
      config,
      orm: db.orm,
      databaseUrl: db.url,
      clock,
      log,
      timers: opts.timers !== false,
      tokens,
    });
    bus = await eventBus(config, log);
    const schema = buildSchema(composeModules({ ...moduleSettings(config, bus), platform: { orm: db.orm } }));
    // One registry for the instance: HTTP and GraphQL (app), webhooks and the database pool publish on it.
    const metrics = createMetrics();
    watchPool(db.orm, metrics);
    mallocTrim = startMallocTrim({ everyMs: config.MALLOC_TRIM_MS, log, metrics });
    const app = await createApp({
      config,
      metrics,
      metricsToken: config.METRICS_TOKEN,
      orm: db.orm,
      carShares,
      schema,
      log,
      clock,
      authenticator: opts.authenticator ?? auth.authenticator,
      oauth: auth,
      // The default self-signed certificate, which ready-made curl commands tell curl to trust.
      caFile: config.TLS_CERT ? undefined : selfSignedCertShown(config.DATA_DIR),
      localCaFile: config.TLS_CERT ? undefined : localCaCertPath(config.DATA_DIR),
      gate: opts.gate,
      listener,
    });
    // Which hosts get a certificate of the local CA (without TLS_CERT): those of the car shares. The CA's file is
    // made as soon as a car share has a host other than `localhost`, so `curl --cacert` finds it before connecting.
    const { tls, listeners, sni } = await serve(app, schema, config, {
      isCarShareHost: (host) => carShares.byHost(host) !== undefined,
      log,
    });
    const makeLocalCa = () => {
      if (sni && carShares.all().some((c) => c.host !== 'localhost'))
        sni.localCa().catch((err: unknown) => log.warn({ err }, 'local CA not made'));
    };
    makeLocalCa();
    carShares.onChange(makeLocalCa);
    const timers =
      opts.timers !== false
        ? startSweeps({ db, config, clock, log, changed: app.changed }, opts.sweepEveryMs)
        : [];
    // Committed events are fanned out and published on the bus in every instance, delivering or not, so
    // subscribers hear them all; SKIP LOCKED shares the work.
    relay = startOutboxRelay({
      orm: db.orm,
      databaseUrl: db.url,
      clock,
      log,
      bus,
      listener,
      take: fanOutBatch,
      // New deliveries show in their subscription's cached searches (their car share's): stale at once, as
      // delivery outcomes are.
      onTaken: (carShareId) => {
        delivery?.wake(carShareId);
        app
          .changed('webhooks', carShareId)
          .catch((err: unknown) => log.warn({ err, carShareId }, 'REST cache not told of new deliveries'));
      },
    });
    // Delivery runs in every instance unless turned off; claims with SKIP LOCKED and leases share the work.
    if (opts.webhooks !== undefined ? opts.webhooks !== false : opts.timers !== false)
      delivery = await startDelivery({
        orm: db.orm,
        databaseUrl: db.url,
        clock,
        log,
        metrics,
        changed: (carShareId) => app.changed('webhooks', carShareId),
        isSuspended: (carShareId) => carShares.byId(carShareId)?.status === 'Suspended',
        listener,
        ...deliverySettings(config),
        ...(opts.webhooks || {}),
      });

    // A car share reactivated (here, or on another instance: its NOTIFY) has its due deliveries looked for now
    // (CONTRACT §23: within 60 s), not at the next poll.
    carShares.onChange((id) => {
      if (carShares.byId(id)?.status === 'Active') delivery?.wake(id);
    });

    return {
      port: listeners.port,
      httpPort: listeners.httpPort,
      cert: tls.cert,
      certPath: tls.certPath,
      db,
      async stop() {
        // Drained side by side: HTTP and WebSocket clients, the relay's batch in hand, deliveries in flight, a
        // sweep in progress. Events committed meanwhile wait in the outbox for a relay here or on another instance.
        mallocTrim?.stop();
        await Promise.all([
          listeners.close().then(() => app.stop()),
          relay?.stop(),
          delivery?.stop(),
          ...timers.map((t) => t.stop()),
        ]);
        await bus?.close();
        await auth?.close();
        await listener?.close();
        if (ownsDb) await db.close();
      },
    };
  } catch (e) {
    mallocTrim?.stop();
    await relay?.stop();
    await delivery?.stop();
    await bus?.close();
    await auth?.close();
    await listener?.close();
    if (ownsDb) await db.close();
    throw e;
  }
}

/** The configured database (DATABASE_URL, or the embedded one in DATA_DIR), migrated. */
function openConfiguredDatabase(config: Config, log: Logger): Promise<Database> {
  return openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    entities,
    appRole: config.DATABASE_APP_ROLE,
    onMigrated: (applied) => log.info({ applied }, 'applied database migrations'),
    stopAdoptedEmbedded: true,
  }).then((db) => {
    if (db.embedded?.adoptedPid)
      log.warn(
        { pid: db.embedded.adoptedPid, dataDir: config.DATA_DIR },
        'found an embedded PostgreSQL this start did not spawn (left running by an earlier run?): using it, and stopping it on exit when nothing else uses it',
      );
    return db;
  });
}

/** Committed events for GraphQL subscriptions, shared by instances through Redis when configured. */
function eventBus(config: Config, log: Logger): Promise<EventBus> | EventBus {
  return config.REDIS_URL ? redisBus(config.REDIS_URL, redisKeys(config.REDIS_KEY_PREFIX), log) : localBus();
}

function moduleSettings(config: Config, bus: EventBus): ModuleSettings {
  return {
    bookingLeadMinutes: config.BOOKING_LEAD_MINUTES,
    webhooks: {
      allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      bus,
    },
  };
}
