// The scope catalogue: what each scope grants, in the words the consent page shows (CONTRACT §4).
import { apiScopes, type Role, type Scope, scopes } from './actor.js';

export const scopeDescriptions = {
  'account:read': 'See your account, your profile and the evidence of your own verifications',
  'account:write': 'Change your account and your profile, and submit evidence for your verifications',
  'cars:read': 'Search cars',
  'cars:write': 'Register and manage your cars, their unavailability, and lock or unlock them',
  'bookings:read': 'See your bookings, as borrower and as owner',
  'bookings:write': 'Request, approve, use and return bookings for you',
  'feedback:read': 'Read feedback and ratings',
  'feedback:write': 'Leave, change and delete feedback for you',
  'verifications:read': 'Read verifications',
  'verifications:write': 'Decide verifications (operators and client applications only)',
  'users:read': 'Read all user accounts (operators and client applications only)',
  'users:write': 'Administer all user accounts (operators and client applications only)',
  'webhooks:read': 'See your webhook subscriptions and their deliveries',
  'webhooks:write': 'Create and manage your webhook subscriptions',
  'reports:read': 'Read network-wide data and the summary report (operators and client applications only)',
  ops: 'Act with your operator privileges',
  platform: 'Administer the car shares of the platform (platform operators only)',
  openid: 'Know who you are (your account id)',
  profile: 'See your name',
  email: 'See your e-mail address',
  offline_access: 'Keep access while you are away, until you disconnect the app',
} as const satisfies Record<Scope, string>;

/** OpenID Connect scopes: oidc-provider's own `scopes`; everything else belongs to the API resource. */
export const oidcScopes = scopes.filter((s) => !apiScopes.includes(s));

export const isScope = (s: string): s is Scope => (scopes as readonly string[]).includes(s);
export const isApiScope = (s: string): s is Scope => (apiScopes as readonly string[]).includes(s);
export const isOidcScope = (s: string): s is Scope => (oidcScopes as readonly string[]).includes(s);

/** A space-separated scope parameter as a de-duplicated list, empty entries dropped. */
export const splitScope = (scope: string | undefined | null): string[] => [
  ...new Set((scope ?? '').split(' ').filter(Boolean)),
];

/**
 * The scopes only a holder of a role may grant (CONTRACT §4, §22): for anyone else they are refused at consent,
 * never asked again and never reach a token.
 */
export const roleBoundScopes = { ops: 'ops', platform: 'platform' } as const satisfies Partial<
  Record<Scope, Role>
>;

/** Whether an account with these roles may grant `scope`. */
export function mayGrant(scope: string, accountRoles: readonly string[]): boolean {
  const role = (roleBoundScopes as Record<string, Role | undefined>)[scope];
  return role === undefined || accountRoles.includes(role);
}
