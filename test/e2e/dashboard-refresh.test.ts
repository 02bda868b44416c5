// The dashboard end to end, a long session: when the operator's access token is about to expire, the next page
// renews it with the refresh token (rotated each time) and the operator notices nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, heading, OPS, signIn, startE2E } from './dashboard.support.js';

let e: E2E;
beforeAll(async () => {
  // 31 s tokens: the dashboard renews 30 s before expiry, so every page after the first second renews.
  e = await startE2E({ env: { ACCESS_TOKEN_TTL_SECONDS: '31' } });
}, 120_000);
afterAll(async () => e?.close());

describe('the dashboard: a session outlives its access tokens', { timeout: 60_000 }, () => {
  it('renews the token on the next page, again and again, without asking the operator', async () => {
    const { page, context } = await e.newContext();
    await signIn(page, e.origin, OPS);
    await heading(page, 'Summary');
    const cookie = async () =>
      (await context.cookies()).find((c) => c.name === '__Host-carshare-dashboard')?.value;
    let before = await cookie();
    for (const [link, title] of [
      ['Users', 'Users'],
      ['Client applications', 'Client applications'],
      ['Webhooks', 'Webhooks'],
    ] as const) {
      await page.waitForTimeout(1100);
      await page.getByRole('link', { name: link, exact: true }).click();
      await heading(page, title);
      const after = await cookie();
      expect(after).toBeTruthy();
      expect(after).not.toBe(before);
      before = after;
    }
    const grants = await e.s.sql<{ n: string }>(
      `select count(*) as n from oauth_model where model = 'RefreshToken' and consumed_at is not null`,
    );
    expect(Number(grants[0]!.n)).toBeGreaterThanOrEqual(3);
  });
});
