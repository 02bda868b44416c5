// Test code's own database work runs in the default car share's scope, as the service's does (src/db/scope.ts):
// as the app role, with row-level security, so a fixture cannot reach what a request could not.
import type { EntityManager } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import type { Orm } from '../../src/db/orm.js';
import { carShareEm } from '../../src/db/scope.js';

/** The default car share's Id in the test database (made by its migration, read once by global-setup). */
export const defaultCarShareId = (): string => inject('defaultCarShareId');

/** An EntityManager scoped to the default car share (or the one given). */
export function scoped(orm: Orm, carShareId: string = defaultCarShareId()): EntityManager {
  return carShareEm(orm, carShareId);
}
