// `npm run webhooks -- listen --forward-to URL` (CONTRACT §27): the car share's events forwarded to a receiver on
// this machine as signed deliveries, the way `stripe listen` does, since subscriptions may not reach private addresses.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { carShareFromCli } from './carshares/car-share.cli.js';
import { createClientFromCli, removeClientFromCli } from './clientapps/client-application.cli.js';
import { ConfigError, loadConfig } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { userAgent } from './delivery/delivery.runtime.js';
import { listenSecret, selfSignedCertificate, tokenOf } from './delivery/listen.credentials.js';
import { startForwarder } from './delivery/listen.forwarder.js';
import { eventNames, isEventName } from './events/events.js';
import { entities } from './modules.js';
import { splitEvents } from './webhooks/subscription.input.js';

const usage = `Usage:
  npm run webhooks -- listen --forward-to URL [--events e1,e2] [--client-id ID --client-secret SECRET]

Forwards the car share's events, as they happen, to URL (http or https, loopback and private addresses allowed)
as signed webhook deliveries. Without --client-id it registers a client application allowed webhooks:read for
as long as it runs.`;

class UsageError extends Error {}

/** A refused option in the API's error shape, naming the option as typed (CONTRACT §27). */
class OptionError extends Error {
  constructor(
    readonly option: string,
    readonly code: 'InvalidFormat' | 'InvalidValue',
    message: string,
    readonly meta?: Record<string, unknown>,
  ) {
    super(message);
  }
}

interface Listen {
  forwardTo: string;
  events: string[] | undefined;
  client: { id: string; secret: string } | undefined;
}

function parse(argv: string[]): Listen {
  const [command, ...args] = argv;
  if (command !== 'listen') throw new UsageError(command ? `unknown command ${command}` : 'no command');
  const { values: v } = parseArgs({
    args,
    options: {
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
    },
  });
  const forwardTo = v['forward-to'];
  if (!forwardTo) throw new UsageError('--forward-to is required');
  if (Boolean(v['client-id']) !== Boolean(v['client-secret']))
    throw new UsageError('--client-id and --client-secret go together');
  let url: URL | undefined;
  try {
    url = new URL(forwardTo);
  } catch {}
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw new OptionError(
      '--forward-to',
      'InvalidFormat',
      '--forward-to must be an absolute http or https URL',
    );
  const events = v.events === undefined ? undefined : splitEvents([v.events]);
  const unknown = events?.filter((e) => !isEventName(e)) ?? [];
  if (events?.length === 0 || unknown.length > 0)
    throw new OptionError(
      '--events',
      'InvalidValue',
      `--events has unknown event names: ${unknown.join(', ')}`,
      {
        Allowed: eventNames,
      },
    );
  return {
    forwardTo,
    events,
    client: v['client-id'] ? { id: v['client-id'], secret: v['client-secret']! } : undefined,
  };
}

async function listen(o: Listen): Promise<number> {
  const config = loadConfig();
  const ca = config.TLS_CERT ? undefined : selfSignedCertificate(config.DATA_DIR);
  const dispatcher = new Agent(ca ? { connect: { ca } } : {});
  const secret = listenSecret(config.DATA_DIR);
  // Without credentials, an application of its own for as long as it runs, made with the admin CLI's database access.
  let db: Database | undefined;
  let made: { Id: string; carShareId: string } | undefined;
  let client = o.client;
  if (!client) {
    db = await openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      entities,
      appRole: config.DATABASE_APP_ROLE,
    });
    // The car share at PUBLIC_URL, whose events it forwards.
    const carShare = await carShareFromCli(db.orm, undefined, config.PUBLIC_URL);
    const name = `webhooks listen on ${hostname()} (${process.pid})`.slice(0, 100);
    const app = await createClientFromCli(
      db,
      [
        ...['--name', name, '--grant', 'client_credentials', '--scopes', 'webhooks:read'],
        ...['--description', 'Made by npm run webhooks -- listen; removed when it stops'],
      ],
      carShare.id,
    );
    made = { Id: app.Id, carShareId: carShare.id };
    client = { id: app.ClientId, secret: app.ClientSecret };
  }
  const credentials = client;
  const cleanUp = async () => {
    await dispatcher.close();
    if (db && made) await removeClientFromCli(db, made.Id, made.carShareId).catch(() => undefined);
    await db?.close();
  };
  return new Promise<number>((done) => {
    let ending = false;
    const end = (code: number) => {
      if (ending) return;
      ending = true;
      void forwarder
        .stop()
        .catch(() => undefined)
        .then(cleanUp)
        .then(() => done(code));
    };
    const forwarder = startForwarder({
      origin: config.PUBLIC_URL,
      ca,
      token: () => tokenOf(config, dispatcher, credentials),
      forwardTo: o.forwardTo,
      events: o.events,
      secret,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      userAgent: userAgent(),
      onConnected: (first) => {
        if (first)
          out(
            `Ready. Signing secret: ${secret} — forwarding ${o.events ? o.events.join(', ') : 'every event'} ` +
              `to ${o.forwardTo} (Ctrl-C to stop)`,
          );
        else out('Reconnected.');
      },
      onDropped: (code) => out(`Connection lost (${code}); reconnecting…`),
      onForwarded: ({ name, deliveryId, result }) =>
        out(
          `${new Date().toISOString()}  ${name}  ${deliveryId}  ` +
            (result.kind === 'response' ? `→ ${result.statusCode}` : `→ failed: ${result.error}`),
        ),
      onFatal: (message) => {
        process.stderr.write(`${message}\n`);
        end(1);
      },
    });
    // `on`, not `once`: Ctrl-C signals the whole foreground group and npm forwards it too, so a second SIGINT comes
    // at once, and its default action would end the process before its application is removed.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => end(0));
  });
}

const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  try {
    return await listen(parse(process.argv.slice(2)));
  } catch (err) {
    if (
      err instanceof UsageError ||
      String((err as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS')
    ) {
      process.stderr.write(`${(err as Error).message}\n${usage}\n`);
      return 2;
    }
    if (err instanceof OptionError) {
      // The admin CLI's shape: the API's ResponseStatus, its field named as the option was typed.
      const field = { ErrorCode: err.code, FieldName: err.option, Message: err.message };
      const Errors = [err.meta ? { ...field, Meta: err.meta } : field];
      process.stderr.write(`${JSON.stringify({ ErrorCode: err.code, Message: err.message, Errors })}\n`);
      return 1;
    }
    process.stderr.write(
      `${err instanceof ConfigError ? err.message : ((err as Error).message ?? String(err))}\n`,
    );
    return 1;
  }
}

main().then((code) => process.exit(code));
