// Who is calling: built from a bearer token by the authorization server, or directly by tests.

// `platform` (CONTRACT §22): held only by accounts of the default car share; it lets its holder grant scope `platform`.
export const roles = ['user', 'ops', 'platform'] as const;
export type Role = (typeof roles)[number];

export const scopes = [
  'account:read',
  'account:write',
  'cars:read',
  'cars:write',
  'bookings:read',
  'bookings:write',
  'feedback:read',
  'feedback:write',
  'verifications:read',
  'verifications:write',
  'users:read',
  'users:write',
  'webhooks:read',
  'webhooks:write',
  'reports:read',
  'ops',
  'platform',
  'openid',
  'profile',
  'email',
  'offline_access',
] as const;
export type Scope = (typeof scopes)[number];

/** The API scopes (everything but the OpenID Connect ones). */
export const apiScopes = scopes.filter(
  (s) => !['openid', 'profile', 'email', 'offline_access'].includes(s),
) as readonly Scope[];

export interface Actor {
  kind: 'anonymous' | 'user' | 'clientapplication';
  /** The user account id, or the client application id; null when anonymous. */
  id: string | null;
  roles: readonly Role[];
  scopes: readonly Scope[];
}

export const anonymous: Actor = Object.freeze({ kind: 'anonymous', id: null, roles: [], scopes: [] });

/**
 * The admin command line at the console (CONTRACT §12): trusted like the database it writes to, so it holds every
 * API scope and may assign roles. It is no account and no application, so its audit entries name `Cli` (§27).
 */
export const commandLine: Actor = Object.freeze({
  kind: 'clientapplication',
  id: null,
  roles: [],
  scopes: apiScopes,
});
export const isCommandLine = (a: Actor): boolean => a === commandLine;

/** The class a permission rule is written for. Ops privileges need both the role and the `ops` scope. */
export type ActorClass = 'anonymous' | 'user' | 'ops' | 'clientapplication';

export function actorClass(a: Actor): ActorClass {
  if (a.kind === 'anonymous') return 'anonymous';
  if (a.kind === 'clientapplication') return 'clientapplication';
  return a.roles.includes('ops') && a.scopes.includes('ops') ? 'ops' : 'user';
}

export const isOps = (a: Actor): boolean => actorClass(a) === 'ops';
export const isUser = (a: Actor): boolean => a.kind === 'user';
export const hasScope = (a: Actor, s: Scope): boolean => a.scopes.includes(s);
/** The same person: a user actor acting for themselves. */
export const isSelf = (a: Actor, userId: string): boolean => a.kind === 'user' && a.id === userId;

export function userActor(id: string, opts: { roles?: Role[]; scopes?: readonly Scope[] } = {}): Actor {
  return { kind: 'user', id, roles: opts.roles ?? ['user'], scopes: opts.scopes ?? apiScopes };
}

export function clientActor(id: string, s: readonly Scope[]): Actor {
  return { kind: 'clientapplication', id, roles: [], scopes: s };
}
