// The "Your first booking" guide of /docs, call by call with its own bodies: from two new accounts and a new car to
// an approved booking. A guide whose calls stopped working fails here.
import { expect, it } from 'vitest';
import type { Actor, Scope } from '../../src/access/actor.js';
import { walkthrough as w } from '../../src/web/booking.guide.js';
import { asClient } from '../support/actors.js';
import { useRest } from './support.js';

const env = useRest();

const user = (id: string): Actor => ({
  kind: 'user',
  id,
  roles: ['user'],
  scopes: w.userScopes.split(' ') as Scope[],
});

it('takes a new car to an approved booking with the calls and bodies of the guide', async () => {
  const ok = async (method: string, path: string, token?: string, body?: unknown) => {
    const r = await env.call(method, path, { token, body });
    expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
    return r.json;
  };
  // 1–2. Two users (no token), then a token for each and the application's own.
  const owner = (await ok('POST', '/api/useraccounts', undefined, w.owner)).UserAccount.Id as string;
  const borrower = (await ok('POST', '/api/useraccounts', undefined, w.borrower)).UserAccount.Id as string;
  const ownerToken = env.tokenFor(user(owner));
  const borrowerToken = env.tokenFor(user(borrower));
  const appToken = env.tokenFor(asClient(['verifications:write']));

  // 3–4. The car, its evidence and the borrower's, each decided by the application; then the car is listed.
  const car = (await ok('POST', '/api/cars', ownerToken, w.car)).Car;
  expect(car.Status).toBe('Draft');
  const submitAll = async (subjectId: string, token: string) => {
    const list = await ok('GET', `/api/verifications?subjectid=${subjectId}`, token);
    const ids: string[] = [];
    for (const v of list.Verifications as { Id: string; Kind: keyof typeof w.evidence }[]) {
      if (!(v.Kind in w.evidence)) continue;
      await ok('PUT', `/api/verifications/${v.Id}/submit`, token, { Evidence: w.evidence[v.Kind] });
      ids.push(v.Id);
    }
    return ids;
  };
  const carChecks = await submitAll(car.Id, ownerToken);
  const borrowerChecks = await submitAll(borrower, borrowerToken);
  expect(carChecks).toHaveLength(2);
  expect(borrowerChecks).toHaveLength(3);
  for (const id of [...carChecks, ...borrowerChecks])
    await ok('PUT', `/api/verifications/${id}/verify`, appToken);
  await ok('PUT', `/api/cars/${car.Id}/list`, ownerToken);

  // 5–6. Tomorrow's period, requested by the borrower and approved by the owner.
  const tomorrow = new Date(env.h.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
  const at = (hour: number) => `${tomorrow}T${String(hour).padStart(2, '0')}:00:00Z`;
  const booking = (
    await ok('POST', `/api/cars/${car.Id}/bookings`, borrowerToken, {
      StartDateUtc: at(w.period.startHourUtc),
      EndDateUtc: at(w.period.endHourUtc),
      Message: 'Weekend trip',
    })
  ).Booking;
  expect(booking.State).toBe('Pending');
  const approved = (await ok('PUT', `/api/bookings/${booking.Id}/approve`, ownerToken)).Booking;
  expect(approved).toMatchObject({ State: 'Approved', CarId: car.Id, BorrowerId: borrower });
});
