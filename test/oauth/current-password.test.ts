// A password change's CurrentPassword is a password guess like a sign-in's (CONTRACT §9: 5 failed passwords lock
// an account for 5 minutes): over HTTPS, wrong ones through PATCH /api/useraccounts/{Id} lock the account for
// the sign-in page and for PATCH alike, and the lock ends after 5 minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import {
  authCodeRequest,
  Browser,
  configFor,
  createClient,
  type OAuthService,
  signUp,
  startOAuthService,
  type TestClient,
  userTokens,
} from './support.js';

let s: OAuthService;
let app: TestClient;
const clock = new ManualClock();
beforeAll(async () => {
  s = await startOAuthService({ clock });
  app = await createClient(s, {
    grants: ['authorization_code'],
    scopes: ['account:read', 'account:write'],
    redirectUris: [REDIRECT],
  });
});
afterAll(async () => s?.close());

const REDIRECT = 'https://app.example/callback';

/** The page the sign-in form answers with, or where it sends the browser (the app, once consent was given). */
async function signInPage(username: string, password: string): Promise<string> {
  const { url } = await authCodeRequest(await configFor(s, app), REDIRECT, 'account:read');
  const browser = new Browser(s);
  const page = await browser.follow(url.toString());
  const next = await browser.submit(page.url, page.html, { username, password }, REDIRECT);
  return next.html === '' ? `sent to ${next.url}` : next.html;
}

describe('CurrentPassword of PATCH /api/useraccounts/{Id}', () => {
  it('locks the account after 5 wrong ones, for the sign-in page and for PATCH, until 5 minutes pass', async () => {
    const user = await signUp(s);
    const tokens = await userTokens(s, app, REDIRECT, user, 'account:read account:write');
    const patch = async (currentPassword: string, password = 'a brand new passphrase') => {
      const r = await s.fetch(`/api/useraccounts/${user.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify({ Password: password, CurrentPassword: currentPassword }),
      });
      return { status: r.status, json: (await r.json()) as any };
    };
    for (let i = 1; i <= 5; i++) {
      const r = await patch(`wrong guess ${i}`);
      expect(r.status).toBe(400);
      expect(r.json.ResponseStatus.Errors).toEqual([
        expect.objectContaining({ ErrorCode: 'InvalidValue', FieldName: 'CurrentPassword' }),
      ]);
    }
    // Locked: the right password opens neither the sign-in page nor a password change…
    expect(await signInPage(user.username, user.password)).toContain('locked');
    const locked = await patch(user.password);
    expect(locked.status).toBe(400);
    expect(locked.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidValue',
      FieldName: 'CurrentPassword',
      Message: expect.stringContaining('locked'),
    });
    // …and the password did not change.
    clock.advance(5 * 60_000 + 1000);
    expect(await signInPage(user.username, 'a brand new passphrase')).toContain('Wrong e-mail address');
    // Once the 5 minutes have passed, the right one works again, and the count starts afresh.
    const changed = await patch(user.password);
    expect(changed.status).toBe(202);
    expect(await signInPage(user.username, 'a brand new passphrase')).toContain(`sent to ${REDIRECT}?code=`);
  });

  it('counts with wrong sign-ins: 3 on the page and 2 through PATCH lock the account', async () => {
    const user = await signUp(s);
    const tokens = await userTokens(s, app, REDIRECT, user, 'account:read account:write');
    for (let i = 1; i <= 3; i++) await signInPage(user.username, `wrong sign-in ${i}`);
    for (let i = 1; i <= 2; i++)
      await s.fetch(`/api/useraccounts/${user.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify({ Password: 'a brand new passphrase', CurrentPassword: `wrong ${i}` }),
      });
    expect(await signInPage(user.username, user.password)).toContain('locked');
  });
});
