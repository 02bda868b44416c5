// `npm run admin -- create-client ...` (CONTRACT §12): creates a client application and prints its secret once.
import { parseArgs } from 'node:util';
import type { Actor } from '../auth/actor.js';
import type { Database } from '../db/database.js';
import { systemClock } from '../shared/clock.js';
import { createClientApplication } from './client-application.commands.js';

/** The operator at the console (the command line is trusted like the database it writes to). */
const operator: Actor = Object.freeze({ kind: 'clientapplication', id: null, roles: [], scopes: [] });

export async function createClientFromCli(
  db: Pick<Database, 'orm'>,
  args: string[],
): Promise<{ Id: string; ClientId: string; ClientSecret: string }> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      description: { type: 'string' },
      grant: { type: 'string', multiple: true },
      scopes: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      refresh: { type: 'boolean', default: false },
    },
  });
  const em = db.orm.em.fork();
  const app = await em.transactional((tem) =>
    createClientApplication(
      { em: tem as typeof em, actor: operator, clock: systemClock },
      {
        name: values.name ?? null,
        description: values.description ?? null,
        grantTypes: values.grant ?? [],
        redirectUris: values['redirect-uri'] ?? [],
        allowedScopes: (values.scopes ?? '').split(/[\s,]+/).filter(Boolean),
        allowRefresh: values.refresh ?? false,
      },
    ),
  );
  return { Id: app.id, ClientId: app.clientId, ClientSecret: app.clientSecret };
}
