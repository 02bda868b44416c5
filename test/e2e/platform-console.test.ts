// The platform console end to end (CONTRACT §22): a person with role `platform` signs in at /platform on the default
// car share's host, lists and searches car shares, creates one (its generated password shown once), suspends,
// reactivates, adds an operator, and deletes it only once suspended and its host typed; the audit lists it all.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stored } from '../platform/support.js';
import { atHost } from '../support/car-shares.js';
import { type E2E, heading, shoot, signIn, startE2E, type Watch } from './dashboard.support.js';
import { platformPerson } from './platform-console.support.js';

let e: E2E;
let port: number;
beforeAll(async () => {
  e = await startE2E();
  port = Number(new URL(e.origin).port);
}, 120_000);
afterAll(async () => e?.close());

const problem = (page: Page) => page.locator('#problem').textContent();
const hostOf = (name: string) => `${name}.localhost:${port}`;

async function create(page: Page, watch: Watch, name: string, label: string, password = '') {
  await page.getByRole('link', { name: 'New car share' }).first().click();
  await heading(page, 'New car share');
  await page.getByLabel('BaseUrl', { exact: true }).fill(`https://${hostOf(name)}`);
  await page.getByLabel('Name', { exact: true }).fill(label);
  await page.getByLabel('Operator’s e-mail address').fill(`ops@${name}.example`);
  if (password) await page.getByLabel('Operator’s password').fill(password);
  await page.getByRole('button', { name: 'Create the car share' }).click();
  await heading(page, 'The car share is created');
  await shoot(page, `platform-created-${name}`, watch);
}

describe('the platform console', { timeout: 180_000 }, () => {
  it('creates, lists, suspends, reactivates, adds an operator, deletes, and audits a car share', async () => {
    const person = await platformPerson(e);
    const { page, watch, context } = await e.newContext();
    await signIn(page, e.origin, person, '/platform');
    await heading(page, 'Car shares');
    await shoot(page, 'platform-list', watch);

    // Created with a generated password: shown once, in the answer to the form, never in a URL.
    await create(page, watch, 'rides', 'Rides <b>& Co</b>');
    const password = await page.locator('#generated-password').inputValue();
    expect(password.length).toBeGreaterThanOrEqual(8);
    expect(page.url()).not.toContain(encodeURIComponent(password));
    expect(page.url()).not.toContain(password);
    // The new car share answers at its host at once.
    expect((await atHost(port, hostOf('rides'), '/')).status).toBe(200);
    await page.getByRole('link', { name: 'Go to the car share' }).click();
    await heading(page, 'Rides <b>& Co</b>');
    expect(await page.content()).not.toContain(password);
    await expect.poll(() => page.locator('main b').count()).toBe(0);
    await expect.poll(() => page.locator('figure.chart svg').count()).toBe(1);
    await shoot(page, 'platform-car-share', watch);
    const id = new URL(page.url()).pathname.split('/').pop()!;

    // Another, with a chosen password: none shown. Then list, filter and search.
    await create(page, watch, 'wheels', 'Wheels', 'a long chosen passphrase');
    await expect.poll(() => page.locator('#generated-password').count()).toBe(0);
    await page.goto(`${e.origin}/platform?q=${encodeURIComponent('rides <b>')}`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await expect.poll(() => page.locator('tbody tr').first().textContent()).toContain('rides.localhost');
    await page.goto(`${e.origin}/platform?q=${encodeURIComponent(hostOf('wheels'))}`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await expect.poll(() => page.locator('tbody tr').first().textContent()).toContain('Wheels');
    await page.goto(`${e.origin}/platform`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(3);
    await shoot(page, 'platform-list-3', watch);

    // Delete is refused while active (the API's words), and whenever the host is mistyped.
    await page.goto(`${e.origin}/platform/carshares/${id}`);
    await page.getByLabel(/Type its host/).fill('wheels.localhost');
    await page.getByRole('button', { name: 'Delete the car share' }).click();
    await expect.poll(() => problem(page)).toContain('Type the host exactly');
    await page.getByLabel(/Type its host/).fill('rides.localhost');
    await page.getByRole('button', { name: 'Delete the car share' }).click();
    await expect.poll(() => problem(page)).toContain('cannot be done in its current state');
    await shoot(page, 'platform-delete-refused', watch);

    // Suspended with a reason: its host answers 403 CarShareSuspended; reactivated, it answers again.
    await page.getByLabel('Reason').fill('Unpaid <invoice>');
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.locator('.notice', { hasText: 'suspended' }).waitFor();
    await expect.poll(() => page.locator('main q').textContent()).toBe('Unpaid <invoice>');
    const refused = await atHost(port, hostOf('rides'), '/api/cars', {
      headers: { accept: 'application/json' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.ResponseStatus.ErrorCode).toBe('CarShareSuspended');
    await page.goto(`${e.origin}/platform?status=Suspended`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await expect.poll(() => page.locator('tbody').textContent()).toContain('rides.localhost');
    await page.goto(`${e.origin}/platform?status=Active`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await page.goto(`${e.origin}/platform/carshares/${id}`);
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.locator('.notice', { hasText: 'active again' }).waitFor();
    expect((await atHost(port, hostOf('rides'), '/')).status).toBe(200);

    // An operator added: the generated password shown once; a taken username refused in words.
    await page.getByLabel('E-mail address', { exact: true }).fill('second@rides.example');
    await page.getByRole('button', { name: 'Add the operator' }).click();
    await page.locator('.notice', { hasText: 'The operator was added' }).waitFor();
    expect(await page.locator('#generated-password').inputValue()).not.toBe('');
    await shoot(page, 'platform-operator-added', watch);
    await page.getByLabel('E-mail address', { exact: true }).fill('second@rides.example');
    await page.getByRole('button', { name: 'Add the operator' }).click();
    await expect.poll(() => problem(page)).toContain('already exists');

    // Name and limits saved; a bad limit explained next to the form.
    await page.getByLabel('Per caller').fill('-5');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => problem(page)).toMatch(/Per caller/);
    await page.getByLabel('Name', { exact: true }).fill('Rides renamed');
    await page.getByLabel('Per caller').fill('120');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice', { hasText: 'saved' }).waitFor();
    await expect.poll(() => page.getByLabel('Per caller').inputValue()).toBe('120');
    await heading(page, 'Rides renamed');

    // Suspended and its host typed (in any case): deleted, gone from the list.
    await page.getByLabel('Reason').fill('Closing');
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.locator('.notice', { hasText: 'suspended' }).waitFor();
    await page.getByLabel(/Type its host/).fill('RIDES.localhost');
    await page.getByRole('button', { name: 'Delete the car share' }).click();
    await page.locator('.notice', { hasText: 'was deleted' }).waitFor();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await expect.poll(async () => page.locator('tbody').textContent()).not.toContain('rides.localhost');

    // The platform audit lists what was done to it.
    await page.getByRole('link', { name: 'Platform audit' }).click();
    await heading(page, 'Platform audit');
    await page.getByLabel('Car share id', { exact: true }).fill(id);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('tbody').textContent()).toContain('createCarShare');
    await expect.poll(() => page.locator('tbody').textContent()).toContain('suspendCarShare');
    await expect.poll(() => page.locator('tbody').textContent()).toContain('addCarShareOperator');
    await expect.poll(() => page.locator('tbody').textContent()).toContain('deleteCarShare');
    await shoot(page, 'platform-audit', watch);

    // Sign-out ends the session: the console asks for a sign-in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'You are signed out');
    await page.goto(`${e.origin}/platform`);
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/api\/oauth\/interaction\//);
    await context.close();
  });

  it('pages through more car shares than one page holds', async () => {
    // Rows of their own, straight into the table: only the list is read here.
    for (let i = 0; i < 26; i++)
      await stored(
        'insert into car_share (id, base_url, host, name) values (gen_random_uuid(), $1, $2, $3)',
        [`https://many-${i}.example`, `many-${i}.example`, `Many ${String(i).padStart(2, '0')}`],
      );
    const person = await platformPerson(e);
    const { page, watch, context } = await e.newContext();
    await signIn(page, e.origin, person, '/platform?q=many');
    await heading(page, 'Car shares');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(25);
    await expect.poll(() => page.locator('.pager').textContent()).toContain('1–25 of 26');
    await page.getByRole('link', { name: 'Next' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('many');
    await shoot(page, 'platform-list-page-2', watch);
    await context.close();
  });
});
