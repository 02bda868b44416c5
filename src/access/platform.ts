// Who may use the platform API (CONTRACT §22): a caller of the default car share holding scope `platform` — a user
// only while they also hold role `platform` (as `ops` needs role and scope), or a client application allowed it.
// The scope confers nothing else: it is in no rule of the permission table.
import type { CarShare } from '../carshares/car-share.js';
import type { Actor } from './actor.js';

export function isPlatformActor(actor: Actor, carShare: Pick<CarShare, 'isDefault'>): boolean {
  if (!carShare.isDefault || !actor.scopes.includes('platform')) return false;
  if (actor.kind === 'clientapplication') return actor.id !== null;
  return actor.kind === 'user' && actor.roles.includes('platform');
}
