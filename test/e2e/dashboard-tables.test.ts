// The dashboard's tables at 1280 px: client ids, grant types and scopes are whole tokens, never broken mid-word.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../oauth/support.js';
import { ARTIFACTS, type E2E, OPS, signIn, startE2E } from './dashboard.support.js';

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
  for (const name of ['Fleet telematics bridge for the northern depots', 'Parking Pal', 'Reports'])
    await createClient(e.s, {
      name,
      grants: ['authorization_code', 'client_credentials'],
      scopes: [
        'account:read',
        'cars:read',
        'cars:write',
        'bookings:read',
        'bookings:write',
        'feedback:read',
        'reports:read',
      ],
      redirectUris: ['https://app.example.com/callback'],
      refresh: true,
    });
}, 120_000);
afterAll(async () => e?.close());

describe('the dashboard’s tables', { timeout: 120_000 }, () => {
  it('keep each id, grant type and scope on one line, and the page within 1280 px', async () => {
    const { page, context } = await e.newContext();
    await signIn(page, e.origin, OPS, '/dashboard/clients');
    await page.locator('table caption', { hasText: 'client application' }).waitFor();
    const tokens = await page.evaluate<{ total: number; broken: string[] }>(`(() => {
      const all = [...document.querySelectorAll('td code')];
      return { total: all.length, broken: all.filter((c) => c.getClientRects().length > 1).map((c) => c.textContent) };
    })()`);
    expect(tokens.total).toBeGreaterThan(20);
    expect(tokens.broken).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-clients-table.png`, fullPage: true });
    await context.close();
  });
});
