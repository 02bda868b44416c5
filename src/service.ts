// Starts and stops the whole service: database, GraphQL, listeners and background timers.
import { createApp } from './app.js';
import type { Authenticator } from './auth/authenticate.js';
import { noTokens } from './auth/authenticate.js';
import { bootstrap } from './bootstrap.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { buildSchema } from './graphql/schema.js';
import { entities, modules } from './modules.js';
import { listen } from './server.js';
import { type Clock, systemClock } from './shared/clock.js';
import type { Logger } from './shared/log.js';
import { loadCertificate } from './tls.js';
import { expireVerifications } from './verifications/verification.commands.js';

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
  /** Background sweeps (verification expiry); off in tests, which call the commands with their own clock. */
  timers?: boolean;
}

const SWEEP_MS = 60_000;

export async function startService(opts: ServiceOptions): Promise<Service> {
  const { config, log } = opts;
  const clock = opts.clock ?? systemClock;
  const db =
    opts.db ??
    (await openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      entities,
      onMigrated: (applied) => log.info({ applied }, 'applied database migrations'),
    }));
  const ownsDb = !opts.db;
  try {
    await bootstrap(db.orm, { email: config.OPS_EMAIL, password: config.OPS_PASSWORD, clock, log });
    const schema = buildSchema(modules);
    const app = await createApp({
      config,
      orm: db.orm,
      schema,
      log,
      clock,
      authenticator: opts.authenticator ?? noTokens,
    });
    const tls = await loadCertificate({
      dataDir: config.DATA_DIR,
      certFile: config.TLS_CERT,
      keyFile: config.TLS_KEY,
    });
    const listeners = await listen(app, schema, {
      host: config.HOST,
      port: config.PORT,
      httpPort: config.HTTP_PORT,
      key: tls.key,
      cert: tls.cert,
    });

    const timers: NodeJS.Timeout[] = [];
    if (opts.timers !== false) {
      const sweep = setInterval(() => {
        db.orm.em
          .fork()
          .transactional((em) => expireVerifications({ em, clock }))
          .catch((err) => log.error({ err }, 'verification expiry sweep failed'));
      }, SWEEP_MS);
      sweep.unref();
      timers.push(sweep);
    }

    return {
      port: listeners.port,
      httpPort: listeners.httpPort,
      cert: tls.cert,
      certPath: tls.certPath,
      db,
      async stop() {
        for (const t of timers) clearInterval(t);
        await listeners.close();
        await app.stop();
        if (ownsDb) await db.close();
      },
    };
  } catch (e) {
    if (ownsDb) await db.close();
    throw e;
  }
}
