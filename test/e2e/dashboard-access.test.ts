// The dashboard end to end, who gets in: a signed-in user without role `ops` is refused; an operator whose
// account is suspended is signed out at once; forms without the session's token or from another site change
// nothing; and on another app's consent page, Deny sends `access_denied` back to that app.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, signUp } from '../oauth/support.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { type E2E, heading, OPS, shoot, signIn, startE2E } from './dashboard.support.js';

let e: E2E;
let app: Receiver;
beforeAll(async () => {
  e = await startE2E();
  // Stands for a third-party application: its redirect URI, on loopback.
  app = await startReceiver({
    reply: () => ({ status: 200, body: 'the app', headers: { 'content-type': 'text/plain' } }),
  });
}, 120_000);
afterAll(async () => {
  await e?.close();
  await app?.close();
});

describe('the dashboard: who gets in', { timeout: 120_000 }, () => {
  it('refuses a signed-in user without the ops role, and keeps no session for them', async () => {
    const user = await signUp(e.s, { firstName: 'Plain', lastName: 'User' });
    const { page, watch, context } = await e.newContext();
    await signIn(page, e.origin, user);
    await heading(page, 'This dashboard is for operators');
    await expect(page.locator('main').textContent()).resolves.toMatch(/does not have\s+the operator role/);
    await shoot(page, 'refused', watch, { status: 403 });
    expect((await context.cookies()).map((c) => c.name)).not.toContain('__Host-carshare-dashboard');
    // Any dashboard page sends them to sign in again, never in.
    await page.goto(`${e.origin}/dashboard/users`);
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/api\/oauth\/interaction\//);
    await context.close();
  });

  it('ends the session of an operator whose account is suspended, at their next page', async () => {
    const other = await signUp(e.s, { firstName: 'Second', lastName: 'Operator' });
    await e.s.sql(`update user_account set roles = '["user","ops"]' where id = ?`, [other.id]);
    const b = await e.newContext();
    await signIn(b.page, e.origin, other);
    await heading(b.page, 'Summary');

    const a = await e.newContext();
    await signIn(a.page, e.origin, OPS, '/dashboard/users?q=operator');
    await a.page
      .locator('tbody tr', { hasText: other.username })
      .getByRole('button', { name: 'Suspend' })
      .click();
    await a.page.locator('.notice', { hasText: 'suspended' }).waitFor();

    await b.page.getByRole('link', { name: 'Client applications' }).click();
    await heading(b.page, 'Your session has ended');
    await shoot(b.page, 'session-ended', b.watch, { status: 401 });
    expect((await b.context.cookies()).map((c) => c.name)).not.toContain('__Host-carshare-dashboard');
    await b.context.close();

    // A form posted without the session's token, or from another site, changes nothing.
    const [dash] = await e.s.sql<{ id: string }>(`select id from client_application where is_first_party`);
    const cookie = (await a.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = await a.page.locator('input[name=csrf]').first().inputValue();
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      e.s.fetch(`/dashboard/clients/${dash!.id}/suspend`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
      });
    const forged = await post({ csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('This form has expired');
    expect((await post({ csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ csrf }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const [row] = await e.s.sql<{ status: string }>(
      `select status from client_application where is_first_party`,
    );
    expect(row!.status).toBe('Active');
    await a.context.close();
  });

  it('on another app’s consent page, Allow is the primary button, Deny a secondary one as easy to press, and Deny returns access_denied to the app', async () => {
    const redirect = `${app.url}/callback`;
    const client = await createClient(e.s, {
      name: 'Parking Pal',
      grants: ['authorization_code'],
      scopes: ['account:read', 'cars:read', 'bookings:read'],
      redirectUris: [redirect],
    });
    const user = await signUp(e.s);
    const state = randomBytes(8).toString('hex');
    const url = new URL(`${e.origin}/api/oauth/auth`);
    url.search = new URLSearchParams({
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: redirect,
      scope: 'account:read cars:read bookings:read',
      state,
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();

    const { page, watch, context } = await e.newContext();
    await page.goto(url.toString());
    await page.getByLabel('E-mail address').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, /Parking Pal wants to access your Carshare account/);
    const text = await page.locator('main').textContent();
    for (const plain of ['Search cars', 'See your bookings, as borrower and as owner', user.username])
      expect(text).toContain(plain);
    const deny = await page.getByRole('button', { name: 'Deny' }).boundingBox();
    const allow = await page.getByRole('button', { name: 'Allow' }).boundingBox();
    expect(deny && allow && Math.abs(deny.width - allow.width) < 2 && deny.height === allow.height).toBe(
      true,
    );
    // Allow is filled with the accent colour; Deny is outlined: the two read differently at a glance.
    const look = (name: string) =>
      page.evaluate<{ background: string; color: string; border: string }>(`(() => {
        const b = [...document.querySelectorAll('button')].find((x) => x.textContent.trim() === '${name}');
        const s = getComputedStyle(b);
        return { background: s.backgroundColor, color: s.color, border: s.borderTopColor };
      })()`);
    const [allowLook, denyLook] = [await look('Allow'), await look('Deny')];
    expect(allowLook).toEqual({
      background: 'rgb(26, 86, 219)',
      color: 'rgb(255, 255, 255)',
      border: 'rgb(26, 86, 219)',
    });
    expect(denyLook).toEqual({
      background: 'rgb(255, 255, 255)',
      color: 'rgb(26, 86, 219)',
      border: 'rgb(26, 86, 219)',
    });
    await shoot(page, 'consent', watch);
    await page.getByRole('button', { name: 'Deny' }).click();
    const back = await waitFor(() => app.requests.find((r) => r.path.startsWith('/callback')), {
      what: 'the app’s callback',
    });
    const q = new URL(back.path, app.url).searchParams;
    expect(q.get('error')).toBe('access_denied');
    expect(q.get('state')).toBe(state);
    expect(q.get('code')).toBeNull();
    await context.close();
  });
});
