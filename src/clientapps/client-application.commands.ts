// The business verbs of client applications (ops only): create, update, rotate the secret, suspend, reactivate,
// delete. Suspending and deleting revoke every token, grant and remembered consent of the app in the same
// transaction, which tells every instance to drop what it cached when it commits (src/access/revocation.ts).
import { scopes } from '../access/actor.js';
import { deleteOAuthRows } from '../access/revocation.js';
import { isScope } from '../access/scope.catalogue.js';
import { inDefaultCarShare } from '../carshares/default-car-share.js';
import { carShareIdOf } from '../db/car-share-condition.js';
import { runSql } from '../db/rows.js';
import type { CommandContext } from '../graphql/context.js';
import { forbidden, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { Check } from '../shared/validation.js';
import {
  ClientApplication,
  type ClientApplicationStatus,
  type ClientGrantType,
  clientGrantTypes,
} from './client-application.entity.js';
import { hashSecret, newClientId, newClientSecret } from './client-secret.js';
import { checkRedirectUris } from './redirect-uris.js';

export interface ClientApplicationInput {
  name?: string | null;
  description?: string | null;
  grantTypes?: string[] | null;
  redirectUris?: string[] | null;
  allowedScopes?: string[] | null;
  allowRefresh?: boolean | null;
}

/** The secret rides along once, on the answer to create and rotate; it is never stored. */
export type WithSecret = ClientApplication & { clientSecret: string };

function check(input: ClientApplicationInput, creating: boolean, current?: ClientApplication): void {
  const c = new Check();
  if (creating || input.name !== undefined)
    if (c.required('name', input.name)) c.length('name', input.name!.trim(), 3, 100);
  c.length('description', input.description, 0, 1000);
  if (creating || input.grantTypes !== undefined)
    if (c.required('grantTypes', input.grantTypes?.length ? input.grantTypes : null))
      for (const g of input.grantTypes!) c.oneOf('grantTypes', g, clientGrantTypes);
  for (const s of input.allowedScopes ?? [])
    if (!isScope(s))
      c.add('InvalidValue', 'allowedScopes', `AllowedScopes: ${s} is not a scope of the API`, {
        Allowed: scopes,
      });
  const grants = input.grantTypes ?? current?.grantTypes ?? [];
  const uris = input.redirectUris ?? current?.redirectUris ?? [];
  checkRedirectUris(c, 'redirectUris', uris, grants.includes('authorization_code'));
  c.throwIfAny();
}

/** Scope `platform` is for the default car share's applications only (CONTRACT §22): elsewhere 400 naming it. */
async function refusePlatformScopeOutsideDefault(
  ctx: CommandContext,
  input: ClientApplicationInput,
): Promise<void> {
  if (!input.allowedScopes?.includes('platform') || (await inDefaultCarShare(ctx.em))) return;
  const c = new Check();
  c.add('InvalidValue', 'allowedScopes', 'AllowedScopes: platform is only for the default car share');
  c.throwIfAny();
}

export async function createClientApplication(
  ctx: CommandContext,
  input: ClientApplicationInput,
  opts: { isFirstParty?: boolean; clientId?: string; secret?: string } = {},
): Promise<WithSecret> {
  check(input, true);
  await refusePlatformScopeOutsideDefault(ctx, input);
  const now = ctx.clock.now();
  const secret = opts.secret ?? newClientSecret();
  const app = ctx.em.create(ClientApplication, {
    id: newId(),
    name: input.name!.trim(),
    description: input.description?.trim() || null,
    clientId: opts.clientId ?? newClientId(),
    secretHash: hashSecret(secret),
    grantTypes: [...new Set(input.grantTypes as ClientGrantType[])],
    redirectUris: [...new Set(input.redirectUris ?? [])],
    allowedScopes: [...new Set(input.allowedScopes ?? [])].filter(isScope),
    allowRefresh: input.allowRefresh ?? false,
    isFirstParty: opts.isFirstParty ?? false,
    status: 'Active',
    lastUsedDateUtc: null,
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  });
  await ctx.em.flush();
  return Object.assign(app, { clientSecret: secret });
}

async function load(ctx: CommandContext, id: string): Promise<ClientApplication> {
  const app = await ctx.em.findOne(ClientApplication, { id });
  if (!app) throw notFound('Client application');
  return app;
}

export async function updateClientApplication(
  ctx: CommandContext,
  id: string,
  input: ClientApplicationInput,
): Promise<ClientApplication> {
  const app = await load(ctx, id);
  check(input, false, app);
  await refusePlatformScopeOutsideDefault(ctx, input);
  if (input.name != null) app.name = input.name.trim();
  if (input.description !== undefined) app.description = input.description?.trim() || null;
  if (input.grantTypes != null) app.grantTypes = [...new Set(input.grantTypes as ClientGrantType[])];
  if (input.redirectUris != null) app.redirectUris = [...new Set(input.redirectUris)];
  if (input.allowedScopes != null) app.allowedScopes = [...new Set(input.allowedScopes)].filter(isScope);
  if (input.allowRefresh != null) app.allowRefresh = input.allowRefresh;
  app.lastModifiedDateUtc = ctx.clock.now();
  return app;
}

/** Every token, grant and remembered consent of the app, gone in the caller's transaction. */
async function revokeEverything(ctx: CommandContext, app: ClientApplication): Promise<void> {
  await deleteOAuthRows(ctx.em, { clientId: app.clientId });
  await runSql(ctx.em, 'delete from oauth_consent where car_share_id = ? and client_application_id = ?', [
    carShareIdOf(ctx.em),
    app.id,
  ]);
}

export async function rotateClientApplicationSecret(ctx: CommandContext, id: string): Promise<WithSecret> {
  const app = await load(ctx, id);
  const secret = newClientSecret();
  app.secretHash = hashSecret(secret);
  app.lastModifiedDateUtc = ctx.clock.now();
  return Object.assign(app, { clientSecret: secret });
}

async function setStatus(ctx: CommandContext, id: string, status: ClientApplicationStatus) {
  const app = await load(ctx, id);
  if (status === 'Suspended') await revokeEverything(ctx, app);
  if (app.status !== status) {
    app.status = status;
    app.lastModifiedDateUtc = ctx.clock.now();
  }
  return app;
}

export const suspendClientApplication = (ctx: CommandContext, id: string) => setStatus(ctx, id, 'Suspended');
export const reactivateClientApplication = (ctx: CommandContext, id: string) => setStatus(ctx, id, 'Active');

export async function deleteClientApplication(ctx: CommandContext, id: string): Promise<{ id: string }> {
  const app = await load(ctx, id);
  // The dashboard signs operators in through it; suspending it is possible, deleting it is not.
  if (app.isFirstParty) throw forbidden('The dashboard’s own client application cannot be deleted');
  await revokeEverything(ctx, app);
  ctx.em.remove(app);
  await ctx.em.flush();
  return { id };
}
