// Who may see and change accounts and profiles (CONTRACT §5, §7).
import { type Actor, actorClass, hasScope, isSelf } from '../access/actor.js';

/** A whole account: the person themself, ops, and client applications with `users:read`. */
export function canSeeAccount(actor: Actor, userId: string): boolean {
  const cls = actorClass(actor);
  if (cls === 'ops') return true;
  if (cls === 'clientapplication') return hasScope(actor, 'users:read') || hasScope(actor, 'users:write');
  return isSelf(actor, userId);
}

/** Administering accounts: ops, and client applications with `users:write`. */
export function canAdministerAccounts(actor: Actor): boolean {
  const cls = actorClass(actor);
  return cls === 'ops' || (cls === 'clientapplication' && hasScope(actor, 'users:write'));
}

/** Profile PII (phone number): the subject, ops, client applications with `users:read`. */
export function canSeeProfilePii(actor: Actor, userId: string): boolean {
  return canSeeAccount(actor, userId);
}
