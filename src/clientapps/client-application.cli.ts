// `npm run admin -- create-client ...` (CONTRACT §12): creates a client application in the car share of
// `--car-share` (§22) and prints its secret once, with the next step at that car share's address.
import { parseArgs } from 'node:util';
import { apiScopes, scopes } from '../access/actor.js';
import { changeFromCommandLine } from '../audit/command-line.js';
import { carShareOption } from '../carshares/car-share.cli.js';
import { issuerOf } from '../carshares/car-share.js';
import type { Database } from '../db/database.js';
import { carShareEm } from '../db/scope.js';
import { systemClock } from '../shared/clock.js';
import { type OptionNames, requireOptions } from '../shared/command-line.js';
import { trimEnd } from '../shared/trim.js';
import { Check } from '../shared/validation.js';
import { createClientApplication, deleteClientApplication } from './client-application.commands.js';
import { clientappsModule } from './clientapps.resolvers.js';

export const createClientUsage = `npm run admin -- create-client --name N --grant client_credentials|authorization_code [--grant ...]
                   --scopes "a b" [--redirect-uri URI ...] [--refresh] [--description D] [--car-share ID|URL]`;

/** The option that feeds each field of the command, for its refusals (CONTRACT §27). */
export const createClientOptions: OptionNames = {
  name: '--name',
  description: '--description',
  grantTypes: '--grant',
  allowedScopes: '--scopes',
  redirectUris: '--redirect-uri',
  allowRefresh: '--refresh',
};

/** The command's options, read and checked for presence; a wrong call is a UsageError or parseArgs' own. */
export function createClientArgs(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      description: { type: 'string' },
      grant: { type: 'string', multiple: true },
      scopes: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      refresh: { type: 'boolean', default: false },
      ...carShareOption,
    },
  });
  // An application without scopes can do nothing; the command line says so before anything is written.
  requireOptions(values, ['name', 'grant', 'scopes']);
  return values;
}

export async function createClientFromCli(
  db: Pick<Database, 'orm'>,
  args: string[],
  carShareId: string,
): Promise<{ Id: string; ClientId: string; ClientSecret: string }> {
  const values = createClientArgs(args);
  const allowedScopes = (values.scopes ?? '').split(/[\s,]+/).filter(Boolean);
  if (allowedScopes.length === 0)
    new Check()
      .add('NotEmpty', 'allowedScopes', 'AllowedScopes must name at least one scope', { Allowed: scopes })
      .throwIfAny();
  const app = await changeFromCommandLine(
    carShareEm(db.orm, carShareId),
    systemClock,
    { action: 'createClientApplication', audit: clientappsModule.audit },
    (ctx) =>
      createClientApplication(ctx, {
        name: values.name ?? null,
        description: values.description ?? null,
        grantTypes: values.grant ?? [],
        redirectUris: values['redirect-uri'] ?? [],
        allowedScopes,
        allowRefresh: values.refresh ?? false,
      }),
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
  const base = trimEnd(site.publicUrl, '/');
  const issuer = `Its authorization server (issuer): ${issuerOf(base)}\n`;
  if (!grants.includes('client_credentials'))
    return `\nThe client secret above is shown only once. How users sign in through this app: ${base}/docs (Authentication).\n${issuer}`;
  return (
    `\nThe client secret above is shown only once. ${issuer}Next, ask for a token:\n\n` +
    `  ${curl} -u '${created.ClientId}:${created.ClientSecret}' -d grant_type=client_credentials` +
    `${scope ? ` -d scope='${scope}'` : ''} ${base}/api/oauth/token\n\n` +
    'then call the API with the access_token it returns:\n\n' +
    `  ${curl} -H "Authorization: Bearer ACCESS_TOKEN" ${base}/api/cars\n\n` +
    `More in ${base}/docs (Getting started).\n`
  );
}

/** `nextStep` for the arguments `create-client` was given, at the car share's address. */
export function clientNextStep(
  result: unknown,
  args: string[],
  site: { publicUrl: string; caFile?: string | undefined },
): string {
  const { values } = parseArgs({
    args,
    options: { grant: { type: 'string', multiple: true }, scopes: { type: 'string' } },
    strict: false,
  });
  const grants = (values.grant ?? []).filter((g): g is string => typeof g === 'string');
  const scopes = typeof values.scopes === 'string' ? values.scopes.split(/[\s,]+/).filter(Boolean) : [];
  return nextStep(result as { ClientId: string; ClientSecret: string }, { grants, scopes }, site);
}

/** Removes an application the command line made for itself (`npm run webhooks -- listen`), revoking its tokens. */
export async function removeClientFromCli(
  db: Pick<Database, 'orm'>,
  id: string,
  carShareId: string,
): Promise<void> {
  await changeFromCommandLine(
    carShareEm(db.orm, carShareId),
    systemClock,
    { action: 'deleteClientApplication', audit: clientappsModule.audit, args: { id } },
    (ctx) => deleteClientApplication(ctx, id),
  );
}
