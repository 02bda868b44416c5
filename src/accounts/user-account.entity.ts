// A person's account: credentials, roles and status. The profile holds what others may see.
import { defineEntity, type EventArgs, p } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Role } from '../access/actor.js';
import { announceAccountChanged } from '../access/revocation.js';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const accountStatuses = ['Active', 'Suspended'] as const;
export type AccountStatus = (typeof accountStatuses)[number];

export const UserAccountSchema = defineEntity({
  name: 'UserAccount',
  tableName: 'user_account',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    /** An e-mail address, stored in NFKC and lowercase so uniqueness ignores case and width (accounts/username.ts). */
    username: p.string().length(254).unique(),
    passwordHash: p.string().hidden(),
    roles: p.json<Role[]>(),
    status: p.string().$type<AccountStatus>(),
    lastSignInDateUtc: p.datetime().nullable(),
    /** Sign-in throttling: consecutive failures and the lock they caused. */
    failedSignIns: p.integer().default(0),
    lockedUntilUtc: p.datetime().nullable(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
  // Tokens are cached with their account's roles and status: a flush that changes either, or deletes the account,
  // tells every instance's token cache in its own transaction (CONTRACT §25), whichever command changed it.
  hooks: {
    afterUpdate: [
      ({ em, entity, changeSet }: EventArgs<{ id: string }>) =>
        changeSet && ('status' in changeSet.payload || 'roles' in changeSet.payload)
          ? announceAccountChanged(em as EntityManager, entity.id)
          : undefined,
    ],
    afterDelete: [
      ({ em, entity }: EventArgs<{ id: string }>) => announceAccountChanged(em as EntityManager, entity.id),
    ],
  },
});
export class UserAccount extends UserAccountSchema.class {}
UserAccountSchema.setClass(UserAccount);
