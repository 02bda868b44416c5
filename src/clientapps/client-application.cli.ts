// `npm run admin -- create-client ...` (CONTRACT §12): creates a client application and prints its secret once.
import { parseArgs } from 'node:util';
import { type Actor, apiScopes } from '../access/actor.js';
import type { Database } from '../db/database.js';
import { systemClock } from '../shared/clock.js';
import { selfSignedCertPath } from '../tls.js';
import { createClientApplication, deleteClientApplication } from './client-application.commands.js';

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

/**
 * The next step, printed on stderr after the JSON: the token request for a client-credentials application, ready
 * to run (trusting the self-signed certificate of a default start), and the first call with its token.
 */
export function nextStep(
  created: { ClientId: string; ClientSecret: string },
  app: { grants: readonly string[]; scopes: readonly string[] },
  site: { publicUrl: string; caFile?: string | undefined },
): string {
  const { grants } = app;
  const scope = app.scopes.filter((s) => (apiScopes as readonly string[]).includes(s)).join(' ');
  const curl = site.caFile ? `curl --cacert '${site.caFile}'` : 'curl';
  const base = site.publicUrl.replace(/\/+$/, '');
  if (!grants.includes('client_credentials'))
    return `\nThe client secret above is shown only once. How users sign in through this app: ${base}/docs (Authentication).\n`;
  return (
    '\nThe client secret above is shown only once. Next, ask for a token:\n\n' +
    `  ${curl} -u '${created.ClientId}:${created.ClientSecret}' -d grant_type=client_credentials` +
    `${scope ? ` -d scope='${scope}'` : ''} ${base}/api/oauth/token\n\n` +
    'then call the API with the access_token it returns:\n\n' +
    `  ${curl} -H "Authorization: Bearer ACCESS_TOKEN" ${base}/api/cars\n\n` +
    `More in ${base}/docs (Getting started).\n`
  );
}

/** `nextStep` for the arguments `create-client` was given, against the configured service. */
export function clientNextStep(
  result: unknown,
  args: string[],
  config: { PUBLIC_URL: string; DATA_DIR: string; TLS_CERT?: string | undefined },
): string {
  const { values } = parseArgs({
    args,
    options: { grant: { type: 'string', multiple: true }, scopes: { type: 'string' } },
    strict: false,
  });
  const grants = (values.grant ?? []).filter((g): g is string => typeof g === 'string');
  const scopes = typeof values.scopes === 'string' ? values.scopes.split(/[\s,]+/).filter(Boolean) : [];
  return nextStep(
    result as { ClientId: string; ClientSecret: string },
    { grants, scopes },
    {
      publicUrl: config.PUBLIC_URL,
      caFile: config.TLS_CERT ? undefined : selfSignedCertPath(config.DATA_DIR),
    },
  );
}

/** Removes an application the command line made for itself (`npm run webhooks -- listen`), revoking its tokens. */
export async function removeClientFromCli(db: Pick<Database, 'orm'>, id: string): Promise<void> {
  const em = db.orm.em.fork();
  await em.transactional((tem) =>
    deleteClientApplication({ em: tem as typeof em, actor: operator, clock: systemClock }, id),
  );
}
