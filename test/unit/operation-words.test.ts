// Refusals name operations in words, whichever surface shows them.
import { describe, expect, it } from 'vitest';
import { operationWords } from '../../src/access/operation-words.js';

describe('operationWords', () => {
  it.each([
    ['createCar', 'create cars'],
    ['approveBooking', 'approve bookings'],
    ['rotateClientApplicationSecret', 'rotate client application secrets'],
    ['createWebhookSubscriptions', 'create webhook subscriptions'],
    ['redeliverWebhookDelivery', 'redeliver webhook deliveries'],
    ['createUnavailability', 'create unavailabilities'],
    ['cars', 'read cars'],
    ['userAccount', 'read user accounts'],
    ['summary', 'read summaries'],
  ])('%s → %s', (operation, words) => {
    expect(operationWords(operation)).toBe(words);
  });
});
