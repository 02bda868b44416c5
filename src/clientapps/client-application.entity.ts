// A client application: an OAuth client of the authorization server (CONTRACT §5). Its secret is kept only as a hash.
import { defineEntity, type EventArgs, p } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from '../access/actor.js';
import { announceClientChanged } from '../access/revocation.js';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const clientApplicationStatuses = ['Active', 'Suspended'] as const;
export type ClientApplicationStatus = (typeof clientApplicationStatuses)[number];

/** The grants an operator may give an app; `refresh_token` follows from `AllowRefresh`. */
export const clientGrantTypes = ['client_credentials', 'authorization_code'] as const;
export type ClientGrantType = (typeof clientGrantTypes)[number];

export const ClientApplicationSchema = defineEntity({
  name: 'ClientApplication',
  tableName: 'client_application',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    name: p.string().length(100),
    description: p.text().nullable(),
    /** Public identifier sent by the app; random, never reused. */
    clientId: p.string().length(64).unique(),
    /** SHA-256 of the 256-bit secret (base64url); the secret itself is shown once and never stored. */
    secretHash: p.string().length(128).hidden(),
    grantTypes: p.json<ClientGrantType[]>(),
    redirectUris: p.json<string[]>(),
    allowedScopes: p.json<Scope[]>(),
    allowRefresh: p.boolean().default(false),
    isFirstParty: p.boolean().default(false),
    status: p.string().$type<ClientApplicationStatus>(),
    lastUsedDateUtc: p.datetime().nullable(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
  // Tokens are cached with their app: a flush that changes its status or client id, or deletes it, tells every
  // instance's token cache (by the client id it had) in its own transaction (CONTRACT §25).
  hooks: {
    afterUpdate: [
      ({ em, entity, changeSet }: EventArgs<{ clientId: string }>) =>
        changeSet && ('status' in changeSet.payload || 'clientId' in changeSet.payload)
          ? announceClientChanged(
              em as EntityManager,
              (changeSet.originalEntity?.clientId as string | undefined) ?? entity.clientId,
            )
          : undefined,
    ],
    afterDelete: [
      ({ em, entity }: EventArgs<{ clientId: string }>) =>
        announceClientChanged(em as EntityManager, entity.clientId),
    ],
  },
});
export class ClientApplication extends ClientApplicationSchema.class {}
ClientApplicationSchema.setClass(ClientApplication);
