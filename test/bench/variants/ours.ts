// The service as `npm start` runs it (src/service.ts, configured from the environment), in its own process.
// With BENCH_TOKENS set, token checking is off: those bearer tokens map straight to their actors (S6's control),
// and it runs no timers or webhook workers. With BENCH_WITHOUT_RLS set, car share work runs as the DATABASE_URL
// user instead of the app role: the same statements, no policy applied (the row-level security goal's control).
import type { Actor } from '../../../src/access/actor.js';
import { type Authenticator, bearerToken } from '../../../src/access/authenticate.js';
import { loadConfig } from '../../../src/config.js';
import { openDatabase } from '../../../src/db/database.js';
import { entities } from '../../../src/modules.js';
import { startService } from '../../../src/service.js';
import { unauthorized } from '../../../src/shared/errors.js';
import { createLogger } from '../../../src/shared/log.js';

function uncheckedTokens(json: string): Authenticator {
  const actors = new Map(Object.entries(JSON.parse(json) as Record<string, Actor>));
  return {
    async actorFor(authorization) {
      const token = bearerToken(authorization);
      if (token === undefined) return { kind: 'anonymous', id: null, roles: [], scopes: [] };
      const actor = actors.get(token);
      if (!actor) throw unauthorized('The access token is not valid');
      return actor;
    },
  };
}

const config = loadConfig();
const tokens = process.env.BENCH_TOKENS;
const db = process.env.BENCH_WITHOUT_RLS
  ? await openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      entities,
      appRole: null,
    })
  : undefined;
const service = await startService({
  config,
  log: createLogger(config.LOG_LEVEL),
  ...(db ? { db } : {}),
  // The control runs no delivery or sweeps of its own: the measured service does. Like every instance it relays
  // the outbox (events it takes wake the measured service's worker by NOTIFY).
  ...(tokens ? { authenticator: uncheckedTokens(tokens), timers: false, webhooks: false } : {}),
});
process.send?.({ type: 'ready', port: service.port });
process.once('SIGTERM', () => {
  void service
    .stop()
    .then(() => db?.close())
    .finally(() => process.exit(0));
});
