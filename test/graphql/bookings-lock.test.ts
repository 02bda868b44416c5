// Locking and unlocking a car (CONTRACT §7): the borrower of its InUse booking, the owner while none is InUse,
// ops any time; idempotent; each change goes through the lock port, whose default adapter records it.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { bookingIn, RETURN, verifiedBorrower, type World, world } from '../factories/bookings.js';
import { sql, UNLIST_CAR } from '../factories/cars.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

let w: World;
const h = useHarness();
beforeEach(async () => {
  w = await world(h);
});

const LOCK = 'mutation($id: UUID!) { lockCar(id: $id) { id lockState lockStateChangedDateUtc } }';
const UNLOCK = 'mutation($id: UUID!) { unlockCar(id: $id) { id lockState lockStateChangedDateUtc } }';
type Car = { id: string; lockState: string; lockStateChangedDateUtc: string | null };
const lock = (actor: World['owner']['actor'], op = LOCK) =>
  h.run<{ lockCar: Car; unlockCar: Car }>(actor, op, { id: w.carId });
const commands = () =>
  sql<{ command: string; requested_by_id: string }>(
    h,
    'select command, requested_by_id from car_lock_command where car_id = ? order by issued_date_utc',
    [w.carId],
  );

describe('lockCar and unlockCar', () => {
  it('by the owner while no booking is InUse: the state and its date change, and the command is recorded', async () => {
    const u = await lock(w.owner.actor, UNLOCK);
    expect(u.data!.unlockCar).toEqual({
      id: w.carId,
      lockState: 'Unlocked',
      lockStateChangedDateUtc: '2026-07-01T10:00:00.000Z',
    });
    h.clock.advance(60_000);
    expect((await lock(w.owner.actor)).data!.lockCar).toMatchObject({
      lockState: 'Locked',
      lockStateChangedDateUtc: '2026-07-01T10:01:00.000Z',
    });
    expect(await commands()).toEqual([
      { command: 'Unlock', requested_by_id: w.owner.id },
      { command: 'Lock', requested_by_id: w.owner.id },
    ]);
  });

  it('is idempotent: locking a Locked car changes nothing and sends nothing', async () => {
    const first = (await lock(w.owner.actor)).data!.lockCar;
    expect(first).toEqual({ id: w.carId, lockState: 'Locked', lockStateChangedDateUtc: null });
    await lock(w.owner.actor, UNLOCK);
    h.clock.advance(60_000);
    const again = (await lock(w.owner.actor, UNLOCK)).data!.unlockCar;
    expect(again.lockStateChangedDateUtc).toBe('2026-07-01T10:00:00.000Z');
    expect(await commands()).toHaveLength(1);
  });

  it('by the borrower of the InUse booking; the owner then gets 409 Conflict CarInUse; ops may', async () => {
    await bookingIn(h, w, 'InUse');
    expect((await lock(w.borrower.actor, UNLOCK)).data!.unlockCar.lockState).toBe('Unlocked');
    const owner = await lock(w.owner.actor);
    expect(errorOf(owner).code).toBe('Conflict');
    expect(owner.errors![0]!.extensions!.meta).toEqual({ reason: 'CarInUse' });
    h.clock.advance(1000);
    expect((await lock(asOps())).data!.lockCar.lockState).toBe('Locked');
    h.clock.advance(1000);
    expect((await lock(w.borrower.actor, UNLOCK)).data!.unlockCar.lockState).toBe('Unlocked');
    expect((await commands()).map((c) => c.command)).toEqual(['Unlock', 'Lock', 'Unlock']);
  });

  it('stops being the borrower’s once the booking is returned, and is the owner’s again', async () => {
    const b = await bookingIn(h, w, 'InUse');
    await h.ok(w.borrower.actor, RETURN, { id: b.id });
    expect(errorOf(await lock(w.borrower.actor, UNLOCK)).code).toBe('Forbidden');
    expect((await lock(w.owner.actor, UNLOCK)).errors).toBeUndefined();
  });

  it('refuses a borrower whose booking is only Approved, a stranger (403 on a listed car, 404 otherwise)', async () => {
    await bookingIn(h, w, 'Approved');
    expect(errorOf(await lock(w.borrower.actor, UNLOCK)).code).toBe('Forbidden');
    const stranger = await verifiedBorrower(h);
    expect(errorOf(await lock(stranger.actor, UNLOCK)).code).toBe('Forbidden');
    await h.ok(w.owner.actor, UNLIST_CAR, { id: w.carId });
    expect(errorOf(await lock(stranger.actor, UNLOCK)).code).toBe('NotFound');
    expect(errorOf(await h.run(w.owner.actor, LOCK, { id: randomUUID() })).code).toBe('NotFound');
    expect(await commands()).toEqual([]);
  });

  it('needs cars:write for the owner and bookings:write for the borrower; never a client application', async () => {
    expect(errorOf(await lock(asUser(w.owner.id, scopesWithout('cars:write')), UNLOCK)).code).toBe(
      'Forbidden',
    );
    await bookingIn(h, w, 'InUse');
    expect(errorOf(await lock(asUser(w.borrower.id, scopesWithout('bookings:write')), UNLOCK)).code).toBe(
      'Forbidden',
    );
    expect(errorOf(await lock(asClient(['cars:write', 'bookings:write', 'reports:read']))).code).toBe(
      'Forbidden',
    );
    expect(errorOf(await lock(anonymous)).code).toBe('Unauthorized');
    expect(await commands()).toEqual([]);
    const [car] = await sql<{ lock_state: string }>(h, 'select lock_state from car where id = ?', [w.carId]);
    expect(car!.lock_state).toBe('Locked');
  });
});
