// The dashboard end to end, reviewing people: a user submits evidence through the API, the operator sees it in
// the Pending queue and verifies it (the API then says Verified), rejects another only with a reason; finds the
// user by name, sees roles and verifications, suspends and reactivates them; and the summary page.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
const SCOPES = 'account:read account:write';
const MINE = '{ me { status isVerifiedBorrower verifications { id kind status reason } } }';
type V = { id: string; kind: string; status: string; reason: string | null };

let user: { id: string; username: string; password: string };
let token = '';
const mine = async () => (await gql(e.s, token, MINE)).data?.me as { status: string; verifications: V[] };

describe('the dashboard: verifications, users and the summary', { timeout: 120_000 }, () => {
  it('shows a submitted verification in the Pending queue with its evidence; Verify changes it in the API', async () => {
    user = await signUp(e.s, { firstName: 'Hedy', lastName: 'Lamarr' });
    const app = await createClient(e.s, {
      grants: ['authorization_code'],
      scopes: SCOPES.split(' '),
      redirectUris: [REDIRECT],
    });
    token = (await userTokens(e.s, app, REDIRECT, user, SCOPES)).access_token;
    const byKind = (k: string) => mine().then((m) => m.verifications.find((v) => v.kind === k)!);
    const submit = async (kind: string, evidence: Record<string, unknown>) => {
      const r = await gql(
        e.s,
        token,
        'mutation($id: UUID!, $input: SubmitVerificationInput!) { submitVerification(id: $id, input: $input) { status } }',
        {
          id: (await byKind(kind)).id,
          input: { evidence },
        },
      );
      expect(r.data?.submitVerification.status).toBe('Pending');
    };
    await submit('PhoneNumber', { phoneNumber: '+14155550123' });
    await submit('DriversLicense', {
      number: 'D1234567',
      jurisdiction: 'CA',
      expiresDateUtc: '2030-01-01T00:00:00Z',
    });

    await signIn(page, e.origin, OPS, '/dashboard/verifications');
    await heading(page, 'Verifications');
    const phone = page.locator('li.card', { hasText: 'PhoneNumber of Hedy Lamarr' });
    await expect(phone.textContent()).resolves.toContain('+14155550123');
    await expect(phone.textContent()).resolves.toContain(user.username);
    const licenceCard = page.locator('li.card', { hasText: 'DriversLicense of Hedy Lamarr' });
    await expect(licenceCard.textContent()).resolves.toContain('D1234567');
    // Evidence dates read like every other date of the dashboard.
    await expect(licenceCard.locator('dl.evidence time').textContent()).resolves.toBe(
      '2030-01-01 00:00:00 UTC',
    );
    await shoot(page, 'verifications', watch);
    await phone.getByRole('button', { name: 'Verify' }).click();
    await page.locator('.notice', { hasText: 'is Verified' }).waitFor();
    expect((await byKind('PhoneNumber')).status).toBe('Verified');
    expect(await page.locator('li.card', { hasText: 'PhoneNumber of Hedy Lamarr' }).count()).toBe(0);
  });

  it('rejects only with a reason, which the person then reads in the API', async () => {
    const licence = page.locator('li.card', { hasText: 'DriversLicense of Hedy Lamarr' });
    await licence.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#problem', { hasText: 'say why it is rejected' }).waitFor();
    const again = page.locator('li.card', { hasText: 'DriversLicense of Hedy Lamarr' });
    expect(await again.getByLabel('Reason').getAttribute('aria-invalid')).toBe('true');
    await shoot(page, 'verification-reason-needed', watch);
    await again.getByLabel('Reason').fill('The licence photo is unreadable; please upload a sharper one.');
    await again.getByRole('button', { name: 'Reject' }).click();
    await page.locator('.notice', { hasText: 'Rejected' }).waitFor();
    const v = (await mine()).verifications.find((x) => x.kind === 'DriversLicense')!;
    expect(v).toMatchObject({
      status: 'Rejected',
      reason: 'The licence photo is unreadable; please upload a sharper one.',
    });
    await expect(page.locator('main').textContent()).resolves.toContain('Nothing to review');
  });

  it('finds a user by name, shows roles and verifications, and suspends / reactivates them', async () => {
    await page.getByRole('link', { name: 'Users' }).click();
    await heading(page, 'Users');
    await page.getByLabel('E-mail address or name').fill('lamarr');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('caption', { hasText: 'matching “lamarr”' }).waitFor();
    const row = page.locator('tbody tr', { hasText: user.username });
    expect(await page.locator('tbody tr').count()).toBe(1);
    const text = await row.textContent();
    expect(text).toContain('user');
    expect(text).toContain('PhoneNumber: Verified');
    expect(text).toContain('DriversLicense: Rejected');
    expect(text).toContain('Not a verified borrower');
    await shoot(page, 'users', watch);
    await row.getByRole('button', { name: 'Suspend' }).click();
    await page.locator('.notice', { hasText: 'suspended' }).waitFor();
    // Still on the same search, and the person's token stopped working at once.
    await expect(page.locator('caption').textContent()).resolves.toContain('lamarr');
    expect((await gql(e.s, token, MINE)).status).toBe(401);
    await page
      .locator('tbody tr', { hasText: user.username })
      .getByRole('button', { name: 'Reactivate' })
      .click();
    await page.locator('.notice', { hasText: 'active again' }).waitFor();
    // By e-mail address too.
    await page.getByLabel('E-mail address or name').fill(user.username.slice(0, 10).toUpperCase());
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('caption', { hasText: 'matching' }).waitFor();
    await expect(page.locator('tbody').textContent()).resolves.toContain(user.username);
  });

  it('the summary shows today, this week and this month, and bookings by state as a chart', async () => {
    await page.getByRole('link', { name: 'Summary' }).click();
    await heading(page, 'Summary');
    const head = await page.locator('table.numbers thead th').allTextContents();
    expect(head.map((h) => h.split('since')[0])).toEqual(['Today', 'This week', 'This month']);
    expect(await page.locator('table.numbers tbody tr').count()).toBe(3);
    const chart = page.getByRole('img', { name: /Bookings by state/ });
    expect(await chart.count()).toBe(1);
    expect(await page.locator('svg rect.chart-bar').count()).toBe(8);
    // Two people signed up (the operator and Hedy): both are active accounts, neither a verified borrower yet.
    const pairs = await page.locator('dl.pairs').textContent();
    expect(pairs).toMatch(/Active accounts\s*2/);
    await shoot(page, 'summary', watch);
  });
});
