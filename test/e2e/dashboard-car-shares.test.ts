// The dashboard end to end on two car shares of one service (CONTRACT §21): in one browser, each host has its own
// sign-in and its own session; an operator of one car share is a wrong password at the other; signing in at one
// leaves the other's session as it was. (The second host is `second.localhost`, which chromium resolves to loopback;
// its certificate is one the service's local CA issued it, which this chromium trusts alone with the first's.)
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiScopes } from '../../src/access/actor.js';
import { createUserAccount } from '../../src/accounts/account.commands.js';
import { CAR_SHARE_CHANNEL } from '../../src/carshares/registry.js';
import { carShareEm, deploymentSql } from '../../src/db/scope.js';
import { systemClock } from '../../src/shared/clock.js';
import { waitFor } from '../support/wait.js';
import { type E2E, heading, launchChromium, OPS, servedTo, signIn, startE2E } from './dashboard.support.js';

const OPS_B = { username: 'ops@second.example', password: 'the second car share’s operator passphrase' };

let e: E2E;
let second: string;
let browser: Browser;

beforeAll(async () => {
  e = await startE2E();
  second = `https://second.localhost:${new URL(e.origin).port}`;
  const orm = e.service.db.orm;
  const id = randomUUID();
  // As the DATABASE_URL user, as the platform adds a car share (the service's connections start as the app role).
  await deploymentSql(orm, 'insert into car_share (id, base_url, host, name) values (?, ?, ?, ?)', [
    id,
    second,
    'second.localhost',
    'Second car share',
  ]);
  await deploymentSql(orm, 'select pg_notify(?, ?)', [CAR_SHARE_CHANNEL, id]);
  await carShareEm(orm, id).transactional((em) =>
    createUserAccount(
      {
        em: em as never,
        actor: { kind: 'clientapplication', id: null, roles: [], scopes: apiScopes },
        clock: systemClock,
      },
      { ...OPS_B, firstName: 'Second', lastName: 'Operator', roles: ['ops'] },
    ),
  );
  // Once the instance has heard of it, its host gets a certificate of its own (no longer the default one).
  const port = Number(new URL(e.origin).port);
  const leaf = await waitFor(
    async () => {
      const pem = await servedTo('second.localhost', port);
      return pem.replace(/\s/g, '') === e.service.cert.replace(/\s/g, '') ? undefined : pem;
    },
    { timeoutMs: 10_000, what: 'the second car share’s certificate' },
  );
  browser = await launchChromium([e.service.cert, leaf]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await e?.close();
});

describe('the dashboard of two car shares in one browser', { timeout: 120_000 }, () => {
  it('signs each car share’s own operator in at its own host, with sessions that do not cross', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, e.origin, OPS);
    await heading(page, 'Summary');
    expect(new URL(page.url()).origin).toBe(e.origin);

    // The second host knows no session: its sign-in page, on its own address.
    await page.goto(`${second}/dashboard`);
    await expect.poll(() => page.url()).toMatch(new RegExp(`^${second}/api/oauth/interaction/`));
    // The first car share's operator is no account here.
    await page.getByLabel('E-mail address').fill(OPS.username);
    await page.getByLabel('Password').fill(OPS.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong e-mail address or password.').waitFor();
    await page.getByLabel('E-mail address').fill(OPS_B.username);
    await page.getByLabel('Password').fill(OPS_B.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Summary');
    expect(new URL(page.url()).origin).toBe(second);
    await expect(page.locator('header').textContent()).resolves.toContain(OPS_B.username);

    // Each host holds its own host-only session cookie; the first is still signed in as before.
    const sessions = (await context.cookies())
      .filter((c) => c.name === '__Host-carshare-dashboard')
      .map((c) => c.domain)
      .sort();
    expect(sessions).toEqual(['localhost', 'second.localhost']);
    await page.goto(`${e.origin}/dashboard`);
    await heading(page, 'Summary');
    await expect(page.locator('header').textContent()).resolves.toContain(OPS.username);
    await context.close();
  });
});
