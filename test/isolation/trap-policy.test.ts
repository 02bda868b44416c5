// CONTRACT §24 "checked from outside": the service's own statements pass through the policies. A restrictive policy
// that admits no row, added behind the service's back, makes a not-yet-cached read find nothing (Total 0, 404);
// dropped, the same reads answer as before. For each table a read operation uses: car, user_account, car_booking.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requestBooking, world } from '../factories/bookings.js';
import { useRest } from '../rest-facade/support.js';
import { asOps } from '../support/actors.js';

const env = useRest();
const db = new pg.Client({ connectionString: inject('databaseUrl') });
let token: string;
let ids: { car: string; user: string; booking: string };
/** A query string never asked before: the REST cache cannot answer it. */
let fresh = 0;
const uncached = () => `limit=${50 + ++fresh}`;

beforeAll(async () => {
  await db.connect();
  const w = await world(env.h);
  const booking = await requestBooking(env.h, w);
  ids = { car: w.carId, user: w.owner.id, booking: booking.id as string };
  token = env.tokenFor(asOps());
});

afterAll(async () => {
  for (const t of ['car', 'user_account', 'car_booking'])
    await db.query(`drop policy if exists trap on ${t}`);
  await db.end();
});

const reads = {
  car: { search: '/api/cars', one: () => `/api/cars/${ids.car}`, list: 'Cars' },
  user_account: {
    search: '/api/useraccounts',
    one: () => `/api/useraccounts/${ids.user}`,
    list: 'UserAccounts',
  },
  car_booking: { search: '/api/bookings', one: () => `/api/bookings/${ids.booking}`, list: 'Bookings' },
} as const;

describe.each(Object.entries(reads))('a trap on %s', (table, r) => {
  it('hides every row from the service while it stands, and nothing once dropped', async () => {
    const before = await env.call('GET', `${r.search}?${uncached()}`, { token });
    expect(before.status).toBe(200);
    expect(before.json.Metadata.Total).toBeGreaterThan(0);
    await db.query(`create policy trap on ${table} as restrictive using (false)`);
    try {
      const search = await env.call('GET', `${r.search}?${uncached()}`, { token });
      expect(search.status).toBe(200);
      expect(search.json.Metadata.Total).toBe(0);
      expect(search.json[r.list]).toEqual([]);
      expect((await env.call('GET', `${r.one()}?${uncached()}`, { token })).status).toBe(404);
    } finally {
      await db.query(`drop policy trap on ${table}`);
    }
    const after = await env.call('GET', `${r.search}?${uncached()}`, { token });
    expect(after.json.Metadata.Total).toBe(before.json.Metadata.Total);
    expect((await env.call('GET', `${r.one()}?${uncached()}`, { token })).status).toBe(200);
  });
});
