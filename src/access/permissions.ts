// The one permission table: operation × actor class → scopes (any one suffices). Relationship rules
// (owner, borrower, subject, self) are enforced by the commands and queries on top of this gate.

import { DomainError, unauthorized } from '../shared/errors.js';
import { type Actor, type ActorClass, actorClass, type Scope } from './actor.js';
import { operationWords } from './operation-words.js';

/** A class missing from a rule may not run the operation. `[]` = no scope needed beyond the class. */
export type Rule = Partial<Record<ActorClass, readonly Scope[]>>;

const anyone: Rule = { anonymous: [], user: [], ops: [], clientapplication: [] };
const authenticated: Rule = { user: [], ops: [], clientapplication: [] };
const webhooksRead: Rule = { user: ['webhooks:read'], ops: [], clientapplication: ['webhooks:read'] };
const webhooksWrite: Rule = { user: ['webhooks:write'], ops: [], clientapplication: ['webhooks:write'] };

export const operations = {
  _ping: anyone,
  // accounts
  me: { user: ['account:read'], ops: [] },
  userAccounts: { user: ['account:read'], ops: [], clientapplication: ['users:read'] },
  userAccount: { user: ['account:read'], ops: [], clientapplication: ['users:read'] },
  createUserAccount: anyone,
  updateUserAccount: { user: ['account:write'], ops: [], clientapplication: ['users:write'] },
  suspendUserAccount: { ops: [], clientapplication: ['users:write'] },
  reactivateUserAccount: { ops: [], clientapplication: ['users:write'] },
  profile: authenticated,
  updateProfile: { user: ['account:write'], ops: [] },
  // cars
  cars: { user: ['cars:read'], ops: [], clientapplication: ['cars:read'] },
  car: { user: ['cars:read'], ops: [], clientapplication: ['cars:read'] },
  createCar: { user: ['cars:write'], ops: [] },
  updateCar: { user: ['cars:write'], ops: [] },
  deleteCar: { user: ['cars:write'], ops: [] },
  listCar: { user: ['cars:write'], ops: [] },
  unlistCar: { user: ['cars:write'], ops: [] },
  unavailabilities: { user: ['cars:read'], ops: [] },
  createUnavailability: { user: ['cars:write'], ops: [] },
  deleteUnavailability: { user: ['cars:write'], ops: [] },
  // verifications
  verifications: {
    user: ['account:read', 'verifications:read'],
    ops: [],
    clientapplication: ['verifications:read'],
  },
  verification: {
    user: ['account:read', 'verifications:read'],
    ops: [],
    clientapplication: ['verifications:read'],
  },
  submitVerification: { user: ['account:write', 'cars:write'], ops: [] },
  verifyVerification: { ops: [], clientapplication: ['verifications:write'] },
  rejectVerification: { ops: [], clientapplication: ['verifications:write'] },
  // feedback
  feedbacks: { user: ['feedback:read'], ops: [], clientapplication: ['feedback:read'] },
  feedback: { user: ['feedback:read'], ops: [], clientapplication: ['feedback:read'] },
  rating: { user: ['feedback:read'], ops: [], clientapplication: ['feedback:read'] },
  // ops pass the gate so an operator who wrote feedback can change it; the command allows only its author.
  updateFeedback: { user: ['feedback:write'], ops: [] },
  deleteFeedback: { user: ['feedback:write'], ops: [] },
  // bookings: users as borrower or owner; client applications never act, and read only with `reports:read`
  bookings: { user: ['bookings:read'], ops: [], clientapplication: ['reports:read'] },
  carBookings: { user: ['bookings:read'], ops: [], clientapplication: ['reports:read'] },
  booking: { user: ['bookings:read'], ops: [], clientapplication: ['reports:read'] },
  // CONTRACT §6: only a `user` requests; an operator books as a user, through a token without `ops`
  requestBooking: { user: ['bookings:write'] },
  approveBooking: { user: ['bookings:write'], ops: [] },
  declineBooking: { user: ['bookings:write'], ops: [] },
  cancelBooking: { user: ['bookings:write'], ops: [] },
  useBooking: { user: ['bookings:write'], ops: [] },
  extendBooking: { user: ['bookings:write'], ops: [] },
  returnBooking: { user: ['bookings:write'], ops: [] },
  completeBooking: { user: ['bookings:write'], ops: [] },
  // feedback is left through its booking; the command refuses ops who are no party to it
  createFeedback: { user: ['feedback:write'], ops: [] },
  // the owner needs `cars:write`, the borrower of the InUse booking `bookings:write` (checked by the command)
  lockCar: { user: ['cars:write', 'bookings:write'], ops: [] },
  unlockCar: { user: ['cars:write', 'bookings:write'], ops: [] },
  // client applications: operators only, through a token carrying the `ops` scope
  clientApplications: { ops: [] },
  clientApplication: { ops: [] },
  createClientApplication: { ops: [] },
  updateClientApplication: { ops: [] },
  deleteClientApplication: { ops: [] },
  rotateClientApplicationSecret: { ops: [] },
  suspendClientApplication: { ops: [] },
  reactivateClientApplication: { ops: [] },
  // webhooks: the caller's own subscriptions (ops: everyone's); which events they receive is decided at fan-out
  webhookSubscriptions: webhooksRead,
  webhookSubscription: webhooksRead,
  webhookDeliveries: webhooksRead,
  webhookDelivery: webhooksRead,
  createWebhookSubscriptions: webhooksWrite,
  updateWebhookSubscription: webhooksWrite,
  deleteWebhookSubscription: webhooksWrite,
  rotateWebhookSubscriptionSecret: webhooksWrite,
  testWebhookSubscription: webhooksWrite,
  redeliverWebhookDelivery: webhooksWrite,
  // the GraphQL subscription `events` (graphql-ws), with the same visibility as webhook subscriptions
  events: webhooksRead,
  // reports: network-wide counts for operators and client applications allowed `reports:read`
  summary: { ops: [], clientapplication: ['reports:read'] },
  // the audit trail (CONTRACT §18): the same readers as the summary
  auditEntries: { ops: [], clientapplication: ['reports:read'] },
  // the platform (CONTRACT §22): every caller reaches src/platform, which answers 404 on any host but the default
  // car share's before it looks at the caller, then asks for the scope `platform`
  carShares: anyone,
  carShare: anyone,
  platformAudit: anyone,
  createCarShare: anyone,
  updateCarShare: anyone,
  suspendCarShare: anyone,
  reactivateCarShare: anyone,
  deleteCarShare: anyone,
  addCarShareOperator: anyone,
} as const satisfies Record<string, Rule>;

export type Operation = keyof typeof operations;

export const isOperation = (name: string): name is Operation => Object.hasOwn(operations, name);

/**
 * The gate every GraphQL operation passes. Anonymous callers refused are 401; an authenticated caller
 * whose class may not run it is 403; one lacking every listed scope is 403 with the scopes it needs.
 */
export function authorize(operation: Operation, actor: Actor): void {
  const rule: Rule = operations[operation];
  const cls = actorClass(actor);
  const needed = rule[cls];
  if (needed === undefined) {
    if (cls === 'anonymous') throw unauthorized();
    throw new DomainError('Forbidden', `Your role may not ${operationWords(operation)}`, {
      meta: { Operation: operation },
    });
  }
  if (needed.length > 0 && !needed.some((s) => actor.scopes.includes(s)))
    throw new DomainError(
      'Forbidden',
      `The scope ${needed.join(' or ')} is needed to ${operationWords(operation)}`,
      {
        meta: { Operation: operation, Reason: 'InsufficientScope', RequiredScopes: needed },
      },
    );
}

/** For rules finer than the table (e.g. which scope a subject type needs). */
export function requireScope(actor: Actor, scope: Scope): void {
  if (actorClass(actor) === 'ops') return;
  if (!actor.scopes.includes(scope))
    throw new DomainError('Forbidden', `This needs the scope ${scope}`, {
      meta: { Reason: 'InsufficientScope', RequiredScopes: [scope] },
    });
}
