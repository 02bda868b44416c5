// JSV in form and query values (CONTRACT §16): an object or array property may be written as ServiceStack
// writes it (`LicensePlate={Jurisdiction:CA,Number:7ABC123}`, `States=[Pending,Approved]`), beside dotted names.
import { beforeAll, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { bookingIn, world } from '../factories/bookings.js';
import { useRest } from './support.js';

const env = useRest();
let token: string;
beforeAll(async () => {
  token = env.tokenFor((await createUser(env.h)).actor);
});

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const scalars = { Make: 'Ford', Model: 'Fiesta', Year: '2019', Transmission: 'Manual', Seats: '5' };

it('a form body takes JSV objects, and dotted names still fill the others', async () => {
  const form = new URLSearchParams({
    ...scalars,
    LicensePlate: '{Jurisdiction:CA,Number:7ABC123}',
    HomeLocation: '{Address:"1 Queen St, Auckland",Latitude:-36.85,Longitude:174.76}',
    'HourlyRate.Amount': '9.90',
    'HourlyRate.Currency': 'NZD',
  });
  const r = await env.call('POST', '/api/cars', { token, body: form.toString(), headers: FORM });
  expect(r.status, r.text).toBe(201);
  expect(r.json.Car).toMatchObject({
    LicensePlate: { Jurisdiction: 'CA', Number: '7ABC123' },
    HomeLocation: { Address: '1 Queen St, Auckland', Latitude: -36.85, Longitude: 174.76 },
    HourlyRate: { Amount: '9.90', Currency: 'NZD' },
  });

  // The query string too, and through a predefined route.
  const q = new URLSearchParams({ Id: r.json.Car.Id, LicensePlate: '{Jurisdiction:NZ,Number:QRY1}' });
  const patched = await env.call('PATCH', `/api/UpdateCar?${q}`, { token });
  expect(patched.status, patched.text).toBe(202);
  expect(patched.json.Car.LicensePlate).toEqual({ Jurisdiction: 'NZ', Number: 'QRY1' });
});

it('coerces the text inside JSV like any form value, naming the inner field when it cannot', async () => {
  const form = new URLSearchParams({
    ...scalars,
    LicensePlate: '{Jurisdiction:CA,Number:JSV2}',
    HomeLocation: '{Address:Here,Latitude:north,Longitude:1}',
    HourlyRate: '{Amount:9.90,Currency:NZD}',
  });
  const r = await env.call('POST', '/api/cars', { token, body: form.toString(), headers: FORM });
  expect(r.status).toBe(400);
  expect(r.json.ResponseStatus.Errors).toEqual([
    expect.objectContaining({ ErrorCode: 'InvalidFormat', FieldName: 'HomeLocation.Latitude' }),
  ]);
});

it('malformed JSV is 400 naming the property', async () => {
  const form = new URLSearchParams({ ...scalars, LicensePlate: '{Jurisdiction:CA,Number:7ABC' });
  const r = await env.call('POST', '/api/cars', { token, body: form.toString(), headers: FORM });
  expect(r.status).toBe(400);
  expect(r.json.ResponseStatus.Errors[0]).toMatchObject({
    ErrorCode: 'InvalidFormat',
    FieldName: 'LicensePlate',
  });
});

it('an array property takes a JSV list in the query string', async () => {
  const w = await world(env.h);
  const pending = await bookingIn(env.h, w, 'Pending', 24, 26);
  const approved = await bookingIn(env.h, w, 'Approved', 30, 32);
  const borrower = env.tokenFor(w.borrower.actor);
  const both = await env.call('GET', '/api/bookings?states=[Pending,Approved]&sort=startdateutc', {
    token: borrower,
  });
  expect(both.status, both.text).toBe(200);
  expect(both.json.Bookings.map((b: { Id: string }) => b.Id)).toEqual([pending.id, approved.id]);
  const one = await env.call('GET', '/api/QueryBookings?States=[Approved]', { token: borrower });
  expect(one.json.Bookings.map((b: { Id: string }) => b.Id)).toEqual([approved.id]);
  const bad = await env.call('GET', '/api/bookings?states=[Pending,Sideways]', { token: borrower });
  expect(bad.status).toBe(400);
  expect(bad.json.ResponseStatus.Errors[0]).toMatchObject({ ErrorCode: 'InvalidValue', FieldName: 'States' });
});
