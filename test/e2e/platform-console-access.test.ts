// The platform console end to end, who gets in and what is refused (CONTRACT §22): an operator without role
// `platform` gets a 403 page and keeps no token; sign-out revokes; /platform is the default car share's only; forms
// without the session's token or from another site change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stored } from '../platform/support.js';
import { atHost } from '../support/car-shares.js';
import { type E2E, heading, OPS, shoot, signIn, startE2E } from './dashboard.support.js';
import { platformPerson } from './platform-console.support.js';

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 120_000);
afterAll(async () => e?.close());

/** The tokens the authorization server holds for an account. */
const tokensOf = async (username: string) => {
  const [row] = await e.s.sql<{ n: string }>(
    `select count(*) as n from oauth_model where model in ('AccessToken', 'RefreshToken')
       and account_id = (select id::text from user_account where username = ?)`,
    [username],
  );
  return Number(row!.n);
};

/** A second car share, `other.localhost`, made once through the console. */
let other: Promise<void> | undefined;
const otherCarShare = () => {
  other ??= (async () => {
    const person = await platformPerson(e);
    const { page, context } = await e.newContext();
    await signIn(page, e.origin, person, '/platform/new');
    await page
      .getByLabel('BaseUrl', { exact: true })
      .fill(`https://other.localhost:${new URL(e.origin).port}`);
    await page.getByLabel('Name', { exact: true }).fill('Other');
    await page.getByLabel('Operator’s e-mail address').fill('ops@other.example');
    await page.getByRole('button', { name: 'Create the car share' }).click();
    await heading(page, 'The car share is created');
    await context.close();
  })();
  return other;
};

describe('the platform console: who gets in', { timeout: 120_000 }, () => {
  it('refuses an operator without role platform with a 403 page, and keeps no token or session', async () => {
    const { page, watch, context } = await e.newContext();
    await signIn(page, e.origin, OPS, '/platform');
    await heading(page, 'This console is for the platform’s people');
    await expect(page.locator('main').textContent()).resolves.toMatch(/does not have\s+the platform role/);
    await shoot(page, 'platform-refused', watch, { status: 403 });
    expect((await context.cookies()).map((c) => c.name)).not.toContain('__Host-carshare-platform');
    expect(await tokensOf(OPS.username)).toBe(0);
    await page.goto(`${e.origin}/platform`);
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/api\/oauth\/interaction\//);
    await context.close();
  });

  it('signs a platform person in and, at sign-out, revokes their tokens', async () => {
    const person = await platformPerson(e);
    const { page, watch, context } = await e.newContext();
    await signIn(page, e.origin, person, '/platform');
    await heading(page, 'Car shares');
    expect(await tokensOf(person.username)).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'You are signed out');
    await shoot(page, 'platform-signed-out', watch);
    expect(await tokensOf(person.username)).toBe(0);
    await context.close();
  });

  it('is at the default car share’s host only: /platform is unknown at another', async () => {
    const port = new URL(e.origin).port;
    await otherCarShare();
    for (const path of ['/platform', '/platform/new', '/platform/audit', '/platform/signin'])
      expect((await atHost(Number(port), `other.localhost:${port}`, path)).status, path).toBe(404);
    expect((await atHost(Number(port), `localhost:${port}`, '/platform/signin')).status).toBe(303);
  });

  it('changes nothing for a form without the session’s token or from another site', async () => {
    await otherCarShare();
    const person = await platformPerson(e);
    const { page, context } = await e.newContext();
    await signIn(page, e.origin, person, '/platform?q=other.localhost');
    await page.locator('tbody a').first().click();
    await heading(page, 'Other');
    const path = `${new URL(page.url()).pathname}/suspend`;
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      e.s.fetch(path, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ reason: 'forged', ...form }).toString(),
        redirect: 'manual',
      });
    const forged = await post({ csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('This form has expired');
    expect((await post({})).status).toBe(403);
    expect((await post({ csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ csrf }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const status = async () =>
      (await stored<{ status: string }>(`select status from car_share where host = 'other.localhost'`))[0]
        ?.status;
    expect(await status()).toBe('Active');
    // The same form with its token, from this origin, does suspend: the refusals above were the checks'.
    expect((await post({ csrf })).status).toBe(303);
    expect(await status()).toBe('Suspended');

    // An id that is none, or no car share's: the API's refusal in words, never an error page.
    for (const bad of ['not-an-id', '00000000-0000-4000-8000-000000000000']) {
      const r = await page.goto(`${e.origin}/platform/carshares/${bad}`);
      expect(r?.status(), bad).toBe(200);
      const words = await page.locator('#problem').textContent();
      expect(words, bad).toMatch(/\w/);
    }
    await context.close();
  });
});
