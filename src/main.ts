// Entry point: reads config, starts the service, and shuts down gracefully on SIGTERM, SIGINT and SIGHUP.

import { ConfigError, loadConfig } from './config.js';
import { IsolationError } from './db/isolation.check.js';
import { busyPortMessage, busyPortOf } from './http/busy-port.js';
import { startService } from './service.js';
import { createLogger, flushLogs } from './shared/log.js';
import { trimEnd } from './shared/trim.js';

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
  throw e;
}

const busy = await busyPortMessage(config);
if (busy) {
  process.stderr.write(`${busy}\n`);
  process.exit(1);
}

const log = createLogger(config.LOG_LEVEL);
let stopping = false;

process.on('unhandledRejection', (err) => {
  // The embedded database stops itself on signals too; its dropped connections are expected then.
  if (stopping) return;
  log.error({ err }, 'unhandled rejection');
});

// Listened to from the first moment, not `once`: a stop asked for while starting waits for the start to finish
// (the embedded database runs in its own process group and would otherwise outlive a killed process), and Ctrl-C
// signals the whole foreground group, so `npm start` forwards a second SIGINT right after the terminal's, whose
// default action would kill the process mid-shutdown. Closing the terminal (SIGHUP) stops it the same way: its
// default action would end the process at once and leave the embedded database running.
let stopRequested: string | undefined;
let shutdown: ((signal: string) => Promise<void>) | undefined;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
  process.on(signal, () => {
    if (shutdown) return void shutdown(signal);
    if (stopRequested) return;
    stopRequested = signal;
    // A start that hangs (an unreachable database) still ends; exiting stops the embedded database too.
    setTimeout(() => {
      log.error({ signal }, 'stop requested while starting, and the start did not finish in 20 s; exiting');
      process.exit(1);
    }, 20_000).unref();
  });

try {
  const service = await startService({ config, log });
  const base = trimEnd(config.PUBLIC_URL, '/');
  log.info(
    {
      url: config.PUBLIC_URL,
      port: service.port,
      httpPort: service.httpPort,
      embedded: !config.DATABASE_URL,
    },
    `Carshare is ready at ${base} (API reference ${base}/docs, dashboard ${base}/dashboard)`,
  );
  // The JSON line above is for machines; this one is for the person who ran `npm start`.
  process.stdout.write(
    `Carshare is ready at ${base} — API reference ${base}/docs — dashboard ${base}/dashboard\n`,
  );
  shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      log.error('shutdown took longer than 20 s; exiting');
      process.exit(1);
    }, 20_000);
    force.unref();
    try {
      await service.stop();
      log.info('stopped');
      // What a slow log consumer has not taken yet is written while the loop still runs (exit would block on it).
      await flushLogs();
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  if (stopRequested) void shutdown(stopRequested);
} catch (err) {
  const busyNow = busyPortOf(err, config);
  if (busyNow) process.stderr.write(`${busyNow}\n`);
  else log.fatal({ err }, 'could not start');
  // The operator has something to fix in the database (CONTRACT §24 rule 6): said even when logs are silenced.
  if (err instanceof IsolationError) process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
