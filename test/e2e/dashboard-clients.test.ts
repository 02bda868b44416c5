// The dashboard end to end, client applications: an operator signs in through the service's own authorization
// server, registers an app, reads its secret once, and the secret works at the token endpoint and the token at
// the API; rotation kills the old secret; suspension refuses the earlier token; deletion after confirmation.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, heading, OPS, shoot, startE2E, type Watch } from './dashboard.support.js';

let e: E2E;
let page: Page;
let watch: Watch;
beforeAll(async () => {
  e = await startE2E();
  ({ page, watch } = await e.newContext());
}, 120_000);
afterAll(async () => e?.close());

async function clientCredentials(clientId: string, secret: string, scope: string) {
  const r = await e.s.fetch('/api/oauth/token', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  return { status: r.status, body: (await r.json()) as Record<string, string> };
}

const summaryWith = async (token: string) =>
  (await e.s.fetch('/api/reports/summary', { headers: { authorization: `Bearer ${token}` } })).status;

describe('the dashboard: client applications', { timeout: 120_000 }, () => {
  it('an operator signs in through the authorization server and lands on the summary', async () => {
    await page.goto(`${e.origin}/dashboard/clients`);
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/api\/oauth\/interaction\//);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(
      'Carshare dashboard',
    );
    await shoot(page, 'sign-in', watch);
    await page.getByLabel('E-mail address').fill(OPS.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong e-mail address or password' }).waitFor();
    await page.getByLabel('Password').fill(OPS.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where the operator was going, with no consent step for the dashboard's own app.
    await page.waitForURL(`${e.origin}/dashboard/clients`);
    await expect(page.locator('form.signout').textContent()).resolves.toContain(
      `Signed in as ${OPS.username}`,
    );
    // The dashboard's own app, with the operator as its one connected user (the last column).
    const own = page.locator('tbody tr', { hasText: 'Carshare dashboard' });
    await expect(own.locator('td').last().textContent()).resolves.toBe('1');
    await shoot(page, 'clients', watch);
    // The session cookie is the only one the dashboard sets, and scripts cannot read it.
    const cookies = await page.context().cookies();
    const dash = cookies.find((c) => c.name === '__Host-carshare-dashboard');
    expect(dash).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    expect(await page.evaluate<string>('document.cookie')).not.toContain('carshare-dashboard');
  });

  it('shows every problem of a refused form by field, and keeps what was typed', async () => {
    await page.getByRole('link', { name: 'Register a client application' }).click();
    await shoot(page, 'client-new', watch);
    await page.getByLabel('Name', { exact: true }).fill('ab');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('http://example.com/callback');
    await page.getByRole('button', { name: 'Register the application' }).click();
    await page
      .locator('#problem', { hasText: 'Redirect URIs: http://example.com/callback must be https' })
      .waitFor();
    expect(await page.getByLabel('Redirect URIs', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Register the application' }).click();
    await page.locator('#problem', { hasText: 'Name must be at least 3 characters' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('ab');
    // The problem is focused so it is read first, and its link leads to the field.
    expect(await page.evaluate<string>('document.activeElement?.id')).toBe('problem');
    await shoot(page, 'client-new-refused', watch);
  });

  let clientId = '';
  let firstSecret = '';
  let firstToken = '';
  it('registers an app, shows its secret once, and the secret gets a token that works at the API', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Fleet reporting');
    await page.getByLabel('Description').fill('Nightly reports for the fleet team');
    await page.getByRole('checkbox', { name: /^reports:read/ }).check();
    await page.getByRole('checkbox', { name: /^cars:read/ }).check();
    await page.getByRole('button', { name: 'Register the application' }).click();
    await heading(page, 'Fleet reporting is registered');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('shown only this once');
    clientId = await page.getByLabel('Client ID').inputValue();
    firstSecret = await page.getByLabel('Client secret').inputValue();
    expect(firstSecret.length).toBeGreaterThanOrEqual(43);
    expect(await page.getByRole('button', { name: 'Copy', exact: true }).count()).toBe(2);
    const curl = await page.locator('pre').textContent();
    expect(curl).toContain(`${clientId}:${firstSecret}`);
    expect(curl).toContain(`${e.origin}/api/oauth/token`);
    expect(curl).toContain("scope='cars:read reports:read'");
    // It works as shown, trusting the default self-signed certificate.
    expect(curl).toMatch(/^curl --cacert \S+\/tls\/localhost\.crt /);
    const asShown = await promisify(execFile)('sh', ['-c', `${curl} -s`]);
    expect(JSON.parse(asShown.stdout)).toMatchObject({ access_token: expect.any(String) });
    await shoot(page, 'client-secret', watch);

    const t = await clientCredentials(clientId, firstSecret, 'reports:read');
    expect(t.status).toBe(200);
    firstToken = t.body.access_token!;
    expect(await summaryWith(firstToken)).toBe(200);

    await page.getByRole('link', { name: /I have stored the secret/ }).click();
    await heading(page, 'Fleet reporting');
    expect(await page.content()).not.toContain(firstSecret);
    await expect(page.locator('pre').textContent()).resolves.toContain('$CLIENT_SECRET');
    await shoot(page, 'client-detail', watch);
  });

  let secondSecret = '';
  it('rotating shows a new secret once, and the old one stops working', async () => {
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await heading(page, 'New secret for Fleet reporting');
    secondSecret = await page.getByLabel('Client secret').inputValue();
    expect(secondSecret).not.toBe(firstSecret);
    const old = await clientCredentials(clientId, firstSecret, 'reports:read');
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    expect((await clientCredentials(clientId, secondSecret, 'reports:read')).status).toBe(200);
    await shoot(page, 'client-rotated', watch);
  });

  it('suspending refuses the earlier token at once; reactivating lets the app ask again', async () => {
    const later = (await clientCredentials(clientId, secondSecret, 'cars:read')).body.access_token!;
    expect(await summaryWith(firstToken)).toBe(200);
    await page.getByRole('link', { name: /I have stored the secret/ }).click();
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.locator('.notice', { hasText: 'The client application is suspended' }).waitFor();
    expect(await summaryWith(firstToken)).toBe(401);
    const cars = await e.s.fetch('/api/cars', { headers: { authorization: `Bearer ${later}` } });
    expect(cars.status).toBe(401);
    expect((await clientCredentials(clientId, secondSecret, 'reports:read')).status).not.toBe(200);
    await shoot(page, 'client-suspended', watch);
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.locator('.notice', { hasText: 'active again' }).waitFor();
    expect((await clientCredentials(clientId, secondSecret, 'reports:read')).status).toBe(200);
  });

  it('deletes only after a confirmation page; the dashboard’s own app offers no delete', async () => {
    await page.getByRole('link', { name: 'Delete…' }).click();
    await heading(page, 'Delete Fleet reporting?');
    await shoot(page, 'client-delete', watch);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await heading(page, 'Fleet reporting');
    await page.getByRole('link', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete Fleet reporting' }).click();
    await page.waitForURL(/\/dashboard\/clients\?notice=client-deleted$/);
    expect(await page.locator('tbody').textContent()).not.toContain('Fleet reporting');
    expect((await clientCredentials(clientId, secondSecret, 'reports:read')).status).toBe(401);
    await page.getByRole('link', { name: 'Carshare dashboard' }).click();
    expect(await page.getByRole('link', { name: 'Delete…' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Suspend' }).count()).toBe(0);
  });

  it('is usable by keyboard: the skip link, then a form filled and sent without a mouse', async () => {
    await page.goto(`${e.origin}/dashboard/clients/new`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Skip to the content');
    await page.keyboard.press('Enter');
    await page.focus('#f-name');
    await page.keyboard.type('Keyboard app');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Made with the keyboard only');
    await page.keyboard.press('Tab'); // client_credentials, already checked
    await page.keyboard.press('Tab'); // authorization_code
    await page.keyboard.press('Tab'); // the first scope
    await page.keyboard.press('Space');
    await page.focus('#f-name');
    await page.keyboard.press('Enter');
    await heading(page, 'Keyboard app is registered');
  });

  it('signs out: the tokens are revoked and the next visit asks for the password again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'You are signed out');
    await shoot(page, 'signed-out', watch);
    await page.goto(`${e.origin}/dashboard`);
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/api\/oauth\/interaction\//);
    expect(await page.getByLabel('Password').count()).toBe(1);
  });
});
