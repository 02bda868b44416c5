// The dashboard end to end, webhooks: an operator subscribes a local receiver to booking approvals, a real
// approval through the API makes the delivery appear on the page with its attempt, and Redeliver sends it again
// (same delivery id, a second, manual attempt). Then test, pause / resume, rotate and delete.
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carInput } from '../factories/cars.js';
import { createClient, gql, signUp, userTokens } from '../oauth/support.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { type E2E, heading, OPS, shoot, signIn, startE2E, type Watch } from './dashboard.support.js';

let e: E2E;
let page: Page;
let watch: Watch;
let rx: Receiver;
beforeAll(async () => {
  e = await startE2E();
  rx = await startReceiver();
  ({ page, watch } = await e.newContext());
}, 120_000);
afterAll(async () => {
  await e?.close();
  await rx?.close();
});

const REDIRECT = 'https://carshare-app.example/callback';
const SCOPES = 'account:read cars:write bookings:read bookings:write';

/** A car owner and a verified borrower with tokens from a real authorization code flow, and a bookable car. */
async function bookingParties() {
  const app = await createClient(e.s, {
    grants: ['authorization_code'],
    scopes: SCOPES.split(' '),
    redirectUris: [REDIRECT],
  });
  const owner = await signUp(e.s);
  const borrower = await signUp(e.s);
  const ownerToken = (await userTokens(e.s, app, REDIRECT, owner, SCOPES)).access_token;
  const borrowerToken = (await userTokens(e.s, app, REDIRECT, borrower, SCOPES)).access_token;
  const car = await gql(
    e.s,
    ownerToken,
    'mutation($input: CreateCarInput!) { createCar(input: $input) { id } }',
    {
      input: carInput(),
    },
  );
  const carId = car.data?.createCar.id as string;
  // An operator's review of the evidence, done here directly: verifications have their own test.
  await e.s.sql(`update verification set status = 'Verified' where subject_id in (?, ?)`, [
    carId,
    borrower.id,
  ]);
  const listed = await gql(e.s, ownerToken, 'mutation($id: UUID!) { listCar(id: $id) { status } }', {
    id: carId,
  });
  expect(listed.data?.listCar.status).toBe('Listed');
  return { ownerToken, borrowerToken, carId };
}

const deliveryCards = (p: Page) => p.locator('li.delivery');

describe('the dashboard: webhooks', { timeout: 120_000 }, () => {
  let secret = '';
  it('subscribes a receiver to an event picked from the list; the secret is shown once', async () => {
    await signIn(page, e.origin, OPS, '/dashboard/webhooks');
    await heading(page, 'Webhooks');
    await shoot(page, 'webhooks-empty', watch);
    await page.getByRole('link', { name: 'Subscribe to events' }).click();
    await heading(page, 'New webhook subscription');
    await shoot(page, 'webhook-new', watch);
    await page.getByLabel('Name', { exact: true }).fill('Booking feed');
    await page.getByLabel('URL', { exact: true }).fill(`${rx.url}/hooks`);
    // Nothing picked: the API's refusal is shown by field.
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.locator('#problem', { hasText: 'Events' }).waitFor();
    await page.getByRole('checkbox', { name: /^carbooking_approve/ }).check();
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await heading(page, 'Subscribed');
    secret = await page.getByLabel('Signing secret for carbooking_approve').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('shown only this once');
    await shoot(page, 'webhook-secret', watch);
    await page.getByRole('link', { name: 'Booking feed' }).click();
    await heading(page, 'Booking feed');
    expect(await page.content()).not.toContain(secret);
    await expect(page.locator('#deliveries').locator('..').textContent()).resolves.toContain(
      'No deliveries yet',
    );
  });

  it('a booking approval makes a delivery appear with its attempt; Redeliver sends it again', async () => {
    const { ownerToken, borrowerToken, carId } = await bookingParties();
    const start = new Date(Date.now() + 3 * 3600_000);
    start.setUTCMinutes(0, 0, 0);
    const requested = await gql(
      e.s,
      borrowerToken,
      'mutation($carId: UUID!, $input: RequestBookingInput!) { requestBooking(carId: $carId, input: $input) { id reference } }',
      {
        carId,
        input: {
          startDateUtc: start.toISOString(),
          endDateUtc: new Date(start.getTime() + 2 * 3600_000).toISOString(),
        },
      },
    );
    const booking = requested.data?.requestBooking as { id: string; reference: string };
    expect(booking?.id).toBeTruthy();
    const approved = await gql(
      e.s,
      ownerToken,
      'mutation($id: UUID!) { approveBooking(id: $id) { state } }',
      {
        id: booking.id,
      },
    );
    expect(approved.data?.approveBooking.state).toBe('Approved');

    const first = await waitFor(
      () => rx.requests.find((r) => r.headers['x-webhook-event'] === 'carbooking_approve'),
      {
        what: 'the approval at the receiver',
      },
    );
    const payload = new Webhook(secret).verify(first.body, first.headers as Record<string, string>) as Record<
      string,
      string
    >;
    expect(payload).toMatchObject({
      Name: 'carbooking_approve',
      Id: booking.id,
      Reference: booking.reference,
    });

    // The page shows it after a reload, with the attempt's status code and duration.
    await waitFor(
      async () => {
        await page.reload();
        return (
          (await deliveryCards(page).count()) === 1 &&
          (await page.locator('table.attempts tbody tr').count()) === 1
        );
      },
      { what: 'the delivery on the page', timeoutMs: 10_000, everyMs: 250 },
    );
    const card = deliveryCards(page).first();
    await expect(card.textContent()).resolves.toContain(first.deliveryId);
    await expect(card.textContent()).resolves.toContain('Succeeded');
    const attempt = await card.locator('table.attempts tbody tr').first().locator('td').allTextContents();
    expect(attempt[1]).toBe('Scheduled');
    expect(attempt[2]).toBe('200');
    expect(attempt[3]).toMatch(/^\d+ ms$/);
    await card.getByText('Payload').click();
    await expect(card.locator('pre').textContent()).resolves.toContain(booking.reference);
    await shoot(page, 'webhook-delivery', watch);

    await card.getByRole('button', { name: 'Redeliver' }).click();
    await page.locator('.notice', { hasText: 'sent again' }).waitFor();
    const again = await waitFor(() => rx.requests.filter((r) => r.deliveryId === first.deliveryId)[1], {
      what: 'the redelivery at the receiver',
    });
    expect(again.headers['webhook-id']).toBe(first.deliveryId);
    await waitFor(
      async () => {
        await page.reload();
        return (await page.locator('table.attempts tbody tr').count()) === 2;
      },
      { what: 'the second attempt on the page', timeoutMs: 10_000, everyMs: 250 },
    );
    const triggers = await page.locator('table.attempts tbody tr td:nth-child(2)').allTextContents();
    expect(triggers.sort()).toEqual(['Manual', 'Scheduled']);
    await shoot(page, 'webhook-redelivered', watch);
  });

  it('sends a test event, pauses and resumes, rotates the secret, and deletes after confirmation', async () => {
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.locator('.notice', { hasText: 'webhook_test' }).waitFor();
    await waitFor(() => rx.requests.find((r) => r.headers['x-webhook-event'] === 'webhook_test'), {
      what: 'the test event',
    });
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.notice', { hasText: 'paused' }).waitFor();
    await expect(page.locator('dl.pairs').textContent()).resolves.toContain('Paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.notice', { hasText: 'active again' }).waitFor();

    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await heading(page, 'New signing secret');
    const rotated = await page.getByLabel('Signing secret for carbooking_approve').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    await page.getByRole('link', { name: 'I have stored it: all subscriptions' }).click();
    await heading(page, 'Webhooks');
    await expect(page.locator('tbody').textContent()).resolves.toContain('Booking feed');
    await shoot(page, 'webhooks', watch);
    await page.getByRole('link', { name: 'Booking feed' }).click();
    await page.getByRole('link', { name: 'Delete…' }).click();
    await heading(page, 'Delete Booking feed?');
    await shoot(page, 'webhook-delete', watch);
    await page.getByRole('button', { name: 'Delete Booking feed' }).click();
    await page.locator('.notice', { hasText: 'deleted' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(0);
  });
});
