// The phone number rule across a booking: owner and borrower see each other's number while the booking is
// Approved or InUse, and not before or after (CONTRACT §5).
import { describe, expect, it } from 'vitest';
import { createUser, markVerified } from '../factories/accounts.js';
import { bookingIn, type World, world } from '../factories/bookings.js';
import { useHarness } from '../support/harness.js';

const h = useHarness();

const PHONE = 'query($id: UUID!) { profile(id: $id) { phoneNumber } }';
const phoneOf = async (viewer: World['owner'], profileId: string) =>
  (await h.ok<{ profile: { phoneNumber: string | null } }>(viewer.actor, PHONE, { id: profileId })).profile
    .phoneNumber;

async function withPhones(): Promise<World> {
  const w = await world(h);
  const set =
    'mutation($id: UUID!, $p: String) { updateProfile(id: $id, input: { phoneNumber: $p }) { id } }';
  await h.ok(w.owner.actor, set, { id: w.owner.profileId, p: '+14155550101' });
  await h.ok(w.borrower.actor, set, { id: w.borrower.profileId, p: '+14155550102' });
  // A new number is Unverified again; the borrower verifies it before booking.
  await markVerified(h, 'UserAccount', w.borrower.id);
  return w;
}

describe('counterparty phone numbers', () => {
  it('are hidden while a booking is only Pending', async () => {
    const w = await withPhones();
    await bookingIn(h, w, 'Pending');
    expect(await phoneOf(w.owner, w.borrower.profileId)).toBeNull();
    expect(await phoneOf(w.borrower, w.owner.profileId)).toBeNull();
  });

  it('are shown both ways while the booking is Approved, and to nobody else', async () => {
    const w = await withPhones();
    await bookingIn(h, w, 'Approved');
    expect(await phoneOf(w.owner, w.borrower.profileId)).toBe('+14155550102');
    expect(await phoneOf(w.borrower, w.owner.profileId)).toBe('+14155550101');
    const stranger = await createUser(h);
    expect(await phoneOf(stranger, w.owner.profileId)).toBeNull();
  });

  it('are shown while InUse and hidden again once the car is returned', async () => {
    const w = await withPhones();
    await bookingIn(h, w, 'InUse');
    expect(await phoneOf(w.borrower, w.owner.profileId)).toBe('+14155550101');
    await h.reset();
    const again = await withPhones();
    await bookingIn(h, again, 'Returned');
    expect(await phoneOf(again.borrower, again.owner.profileId)).toBeNull();
  });
});
