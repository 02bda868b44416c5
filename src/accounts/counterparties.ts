// The port through which accounts learn who is someone's counterparty, without importing bookings.
//
// CONTRACT §5 shows a person's phone number to the other party of an Approved or InUse booking (owner ↔
// borrower). Bookings come after accounts, so accounts state the question and bookings answer it;
// src/modules.ts wires the answer in.
import type { EntityManager } from '@mikro-orm/postgresql';
import { defineLoader } from '../graphql/loaders.js';

export interface Counterparties {
  /** For each (viewer, subject) pair: are they the two parties of an Approved or InUse booking? */
  arePartners(
    em: EntityManager,
    pairs: readonly { viewerId: string; subjectId: string }[],
  ): Promise<boolean[]>;
}

/** A world without bookings: nobody is anybody's counterparty. */
export const noCounterparties: Counterparties = {
  arePartners: async (_em, pairs) => pairs.map(() => false),
};

/** Batched per request: one statement however many profiles a page shows. */
export const partnerLoader = (counterparties: Counterparties) =>
  defineLoader<{ viewerId: string; subjectId: string }, boolean>(
    'counterpartyPairs',
    (em, pairs) => counterparties.arePartners(em, pairs),
    (p) => `${p.viewerId}:${p.subjectId}`,
  );
