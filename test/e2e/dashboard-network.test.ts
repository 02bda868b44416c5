// The dashboard end to end, the whole network (CONTRACT §18): an operator searches cars by make and status,
// opens a car (its verifications, bookings and unavailability) and unlists / lists it; finds a booking by
// reference, reads its states with their dates, cancels it with a reason (the REST API then says Cancelled);
// and reads the audit trail filtered by subject, reached from the subject's own page.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carInput } from '../factories/cars.js';
import { createClient, gql, signUp, userTokens } from '../oauth/support.js';
import { type E2E, heading, OPS, shoot, signIn, startE2E, type Watch } from './dashboard.support.js';

let e: E2E;
let page: Page;
let watch: Watch;
beforeAll(async () => {
  e = await startE2E();
  ({ page, watch } = await e.newContext());
}, 120_000);
afterAll(async () => e?.close());

const REDIRECT = 'https://carshare-app.example/callback';
const SCOPES = 'account:read cars:read cars:write bookings:read bookings:write';
const iso = (hoursAhead: number) => new Date(Date.now() + hoursAhead * 3_600_000).toISOString();

let tatra = '';
let skoda = '';
let borrowerToken = '';
let ownerToken = '';
let booking = { id: '', reference: '' };

async function world() {
  const app = await createClient(e.s, {
    grants: ['authorization_code'],
    scopes: SCOPES.split(' '),
    redirectUris: [REDIRECT],
  });
  const owner = await signUp(e.s, { firstName: 'Hans', lastName: 'Ledwinka' });
  const borrower = await signUp(e.s, { firstName: 'Bertha', lastName: 'Benz' });
  ownerToken = (await userTokens(e.s, app, REDIRECT, owner, SCOPES)).access_token;
  borrowerToken = (await userTokens(e.s, app, REDIRECT, borrower, SCOPES)).access_token;
  const create = async (input: Record<string, unknown>) =>
    (
      await gql(e.s, ownerToken, 'mutation($input: CreateCarInput!) { createCar(input: $input) { id } }', {
        input,
      })
    ).data?.createCar.id as string;
  tatra = await create(
    carInput({
      make: 'Tatra',
      model: 'T87',
      year: 1948,
      licensePlate: { jurisdiction: 'CZ', number: 'T87 1948' },
    }),
  );
  skoda = await create(carInput({ make: 'Skoda', model: 'Octavia', year: 2021 }));
  // An operator's review of the evidence, done here directly: verifications have their own test.
  await e.s.sql(`update verification set status = 'Verified' where subject_id in (?, ?)`, [
    tatra,
    borrower.id,
  ]);
  await gql(e.s, ownerToken, 'mutation($id: UUID!) { listCar(id: $id) { status } }', { id: tatra });
  const unavailable = await gql(
    e.s,
    ownerToken,
    'mutation($carId: UUID!, $input: CreateUnavailabilityInput!) { createUnavailability(carId: $carId, input: $input) { id } }',
    {
      carId: tatra,
      input: { startDateUtc: iso(100), endDateUtc: iso(110), reason: 'Maintenance', note: 'New tyres' },
    },
  );
  expect(unavailable.errors).toBeUndefined();
  const requested = await gql(
    e.s,
    borrowerToken,
    'mutation($carId: UUID!, $input: RequestBookingInput!) { requestBooking(carId: $carId, input: $input) { id reference } }',
    { carId: tatra, input: { startDateUtc: iso(48), endDateUtc: iso(50) } },
  );
  booking = requested.data?.requestBooking;
  const approved = await gql(e.s, ownerToken, 'mutation($id: UUID!) { approveBooking(id: $id) { state } }', {
    id: booking.id,
  });
  expect(approved.data?.approveBooking.state).toBe('Approved');
}

/** Tables fit a 1280-pixel screen: nothing scrolls sideways. */
const fits = async (p: Page) =>
  expect(await p.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);

describe('the dashboard: cars, bookings and the audit trail', { timeout: 120_000 }, () => {
  it('searches cars by make and by status', async () => {
    await world();
    await signIn(page, e.origin, OPS, '/dashboard/cars');
    await heading(page, 'Cars');
    await expect(page.locator('caption').textContent()).resolves.toContain('2 cars');
    await page.getByLabel('Make').fill('tatra');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('caption', { hasText: '1 car' }).waitFor();
    const row = page.locator('tbody tr');
    expect(await row.count()).toBe(1);
    await expect(row.textContent()).resolves.toMatch(/Tatra T87 1948.*CZ T87 1948.*Hans Ledwinka.*Listed/s);
    // The owner's id is shortened, with the whole id on hover.
    expect(await row.locator('.id').first().getAttribute('title')).toMatch(/^[0-9a-f-]{36}$/);
    await fits(page);
    await shoot(page, 'cars', watch);
    // A malformed owner id is a problem named by its field, not an error page.
    await page.getByLabel('Owner (user id)', { exact: true }).fill('not-an-id');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#problem', { hasText: 'Owner (user id) must be a whole id' }).waitFor();
    await page.getByLabel('Owner (user id)', { exact: true }).fill('');
    await page.getByLabel('Make').fill('');
    await page.getByLabel('Status').selectOption('Draft');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('caption', { hasText: '1 car' }).waitFor();
    await expect(page.locator('tbody').textContent()).resolves.toContain('Skoda Octavia');
    expect(skoda).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("shows a car's verifications, bookings and unavailability; unlists and lists it", async () => {
    await page.goto(`${e.origin}/dashboard/cars?make=Tatra`);
    await page.getByRole('link', { name: 'Tatra T87 1948' }).click();
    await heading(page, 'Tatra T87 1948');
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toMatch(/Verified\s*LicensePlate/);
    expect(main).toMatch(/Verified\s*RoadWorthiness/);
    expect(main).toContain(booking.reference);
    expect(main).toContain('New tyres');
    expect(main).toContain('Maintenance');
    await fits(page);
    await shoot(page, 'car', watch);
    await page.getByRole('button', { name: 'Unlist' }).click();
    await page.locator('.notice', { hasText: 'is unlisted' }).waitFor();
    // The REST API, as the owner reads it.
    const status = async () => {
      const r = await e.s.fetch(`/api/cars/${tatra}`, { headers: { authorization: `Bearer ${ownerToken}` } });
      return ((await r.json()) as { Car: { Status: string } }).Car.Status;
    };
    expect(await status()).toBe('Unlisted');
    await page.getByRole('button', { name: 'List' }).click();
    await page.locator('.notice', { hasText: 'is listed' }).waitFor();
    expect(await status()).toBe('Listed');
  });

  it('finds a booking by reference and shows its states with their dates', async () => {
    await page.getByRole('link', { name: 'Bookings', exact: true }).click();
    await heading(page, 'Bookings');
    await page.getByLabel('Reference').fill(booking.reference.toLowerCase());
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('caption', { hasText: '1 booking' }).waitFor();
    await expect(page.locator('tbody').textContent()).resolves.toMatch(/Approved.*Tatra T87.*Bertha Benz/s);
    await fits(page);
    await shoot(page, 'bookings', watch);
    await page.getByRole('link', { name: booking.reference }).click();
    await heading(page, `Booking ${booking.reference}`);
    const states = await page
      .locator('table', { hasText: 'States and their dates' })
      .locator('tbody th')
      .allTextContents();
    expect(states).toEqual(['Requested (Pending)', 'Approved']);
    await fits(page);
    await shoot(page, 'booking', watch);
  });

  it('cancels it as an operator only with a reason, which the REST API then shows', async () => {
    await page.getByRole('button', { name: 'Cancel the booking' }).click();
    await page.locator('#problem').waitFor();
    expect(await page.getByLabel('Reason').getAttribute('aria-invalid')).toBe('true');
    await shoot(page, 'booking-reason-needed', watch);
    await page.getByLabel('Reason').fill('The car failed its inspection.');
    await page.getByRole('button', { name: 'Cancel the booking' }).click();
    await page.locator('.notice', { hasText: 'is cancelled' }).waitFor();
    const r = await e.s.fetch(`/api/bookings/${booking.id}`, {
      headers: { authorization: `Bearer ${borrowerToken}` },
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { Booking: Record<string, unknown> }).Booking).toMatchObject({
      State: 'Cancelled',
      CancellationReason: 'The car failed its inspection.',
    });
    const states = await page
      .locator('table', { hasText: 'States and their dates' })
      .locator('tbody th')
      .allTextContents();
    expect(states).toEqual(['Requested (Pending)', 'Approved', 'Cancelled']);
  });

  it("reads the audit trail filtered by subject, from the subject's page", async () => {
    await page.getByRole('link', { name: 'Audit trail of this booking' }).click();
    await heading(page, 'Audit trail');
    expect(await page.getByLabel('Subject id', { exact: true }).inputValue()).toBe(booking.id);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    await expect(rows.textContent()).resolves.toMatch(/Operator.*cancelBooking.*CarBooking/s);
    await shoot(page, 'audit-booking', watch);
    // The car's trail: the operator unlisted and listed it (the owner's own listing is no administrative change).
    await page.goto(`${e.origin}/dashboard/cars/${tatra}`);
    await page.getByRole('link', { name: 'Audit trail of this car' }).click();
    await heading(page, 'Audit trail');
    const actions = await page.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(actions).toEqual(['listCar', 'unlistCar']);
    // Filtering by hand: the whole trail, then by action.
    await page.getByLabel('Subject id', { exact: true }).fill('');
    await page.getByLabel('Subject type').selectOption('');
    await page.getByLabel('Action', { exact: true }).fill('cancelbooking');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('caption', { hasText: '1 entry' }).waitFor();
    await fits(page);
    await shoot(page, 'audit', watch);
  });
});
