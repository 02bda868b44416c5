// The HTML format in a real browser at 1280 px: a 100-car `embed=all` page fits the width, nested objects fold
// away, long values wrap, and ids stay whole.
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/shared/clock.js';
import { seedCars } from '../factories/cars.js';
import { configFor, createClient, signUp } from '../oauth/support.js';
import type { Harness } from '../support/harness.js';
import { ARTIFACTS, type E2E, startE2E } from './dashboard.support.js';

let e: E2E;
let token: string;
beforeAll(async () => {
  e = await startE2E();
  const owners = [(await signUp(e.s)).id, (await signUp(e.s)).id];
  const clock: Clock = { now: () => new Date() } as Clock;
  await seedCars({ orm: e.service.db.orm, clock } as unknown as Harness, owners, 100);
  // A long description, as owners write them: it must wrap, not widen the page.
  await e.s.sql(
    `update car set description = repeat('A roomy, quiet car with a roof box and child seats. ', 12)`,
  );
  const machine = await createClient(e.s, {
    grants: ['client_credentials'],
    scopes: ['cars:read', 'users:read', 'verifications:read', 'feedback:read'],
  });
  token = (
    await oc.clientCredentialsGrant(await configFor(e.s, machine), {
      scope: 'cars:read users:read verifications:read feedback:read',
    })
  ).access_token;
}, 180_000);
afterAll(async () => {
  await e?.close();
});

describe('GET /api/cars?embed=all&format=html in chromium at 1280 px', { timeout: 180_000 }, () => {
  it('is at most 1280 px wide, folds embedded objects, wraps long values and keeps ids on one line', async () => {
    const { page, context } = await e.newContext();
    await context.setExtraHTTPHeaders({ authorization: `Bearer ${token}` });
    const r = await page.goto(`${e.origin}/api/cars?limit=100&embed=all&format=html`);
    expect(r?.status()).toBe(200);
    expect(await page.locator('main > dl > dd > table > tbody > tr').count()).toBe(100);
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    await page.screenshot({ path: `${ARTIFACTS}/html-cars-embed-all.png` });
    expect(width).toBeLessThanOrEqual(1280);
    // Embedded resources are folded: a summary naming them, the details one click away.
    const folded = page.locator('tbody details');
    expect(await folded.count()).toBeGreaterThan(100);
    expect(await folded.first().evaluate((d) => (d as { open: boolean }).open)).toBe(false);
    // Every id reads as one line: an inline element broken across lines has one box per line.
    const ids = await page.evaluate<{ total: number; broken: string[] }>(`(() => {
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
      const all = [...document.querySelectorAll('main *')].filter((c) => c.children.length === 0 && uuid.test(c.textContent.trim()));
      const spills = (c) => c.getBoundingClientRect().right > c.parentElement.getBoundingClientRect().right + 1;
      return { total: all.length, broken: all.filter((c) => c.getClientRects().length > 1 || spills(c)).map((c) => c.textContent) };
    })()`);
    expect(ids.total).toBeGreaterThanOrEqual(200);
    expect(ids.broken).toEqual([]);
    // Opened, the embedded resources still fit.
    for (const what of ['Verifications', 'Owner', 'Rating'])
      await page.locator('tbody summary', { hasText: what }).first().click();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    await page.screenshot({ path: `${ARTIFACTS}/html-cars-embed-all.png` });
    await context.close();
  });
});
