// Usernames over HTTPS against the real service: one account however the address is written (NFKC: fullwidth
// letters are ASCII ones), and no account whose name only looks like another's (invisible characters, letters
// of two scripts) — at sign-up (REST) and at the sign-in page. Accounts stored before keep signing in.
import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/password.js';
import {
  authCodeRequest,
  Browser,
  configFor,
  createClient,
  type OAuthService,
  startOAuthService,
  type TestClient,
} from './support.js';

let s: OAuthService;
let app: TestClient;
beforeAll(async () => {
  s = await startOAuthService();
  app = await createClient(s, {
    grants: ['authorization_code'],
    scopes: ['account:read'],
    redirectUris: [REDIRECT],
  });
});
afterAll(async () => s?.close());

const REDIRECT = 'https://app.example/callback';
const PASSWORD = 'a long and unusual passphrase';

/** POST /api/useraccounts, the public sign-up. */
async function signUp(username: string) {
  const r = await s.fetch('/api/useraccounts', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Username: username, Password: PASSWORD, FirstName: 'Ada', LastName: 'Lovelace' }),
  });
  return { status: r.status, json: (await r.json()) as any };
}

/** The page the sign-in form answers with for this username and password. */
async function signIn(username: string, password = PASSWORD): Promise<string> {
  const { url } = await authCodeRequest(await configFor(s, app), REDIRECT, 'account:read');
  const browser = new Browser(s);
  const page = await browser.follow(url.toString());
  return (await browser.submit(page.url, page.html, { username, password })).html;
}
const CONSENT = 'name="decision"';

/** `ada` → `ａｄａ`: the fullwidth forms of ASCII letters, digits, `@` and `.`. */
const fullwidth = (ascii: string) =>
  [...ascii].map((c) => String.fromCodePoint(c.codePointAt(0)! - 0x21 + 0xff01)).join('');

describe('one account however the address is written', () => {
  it('a fullwidth address is the ASCII one: a second sign-up is 409 AlreadyExists, and it signs in', async () => {
    const ascii = `ada.${randomUUID().slice(0, 8)}@example.com`;
    const first = await signUp(ascii);
    expect(first.status).toBe(201);
    const again = await signUp(fullwidth(ascii));
    expect(again.status).toBe(409);
    expect(again.json.ResponseStatus).toMatchObject({ ErrorCode: 'AlreadyExists' });
    expect(await signIn(fullwidth(ascii))).toContain(CONSENT);
    expect(await signIn(ascii.toUpperCase())).toContain(CONSENT);
  });

  it('an account signed up in fullwidth letters is stored, shown and found in ASCII', async () => {
    const ascii = `grace.${randomUUID().slice(0, 8)}@example.com`;
    const r = await signUp(fullwidth(ascii.toUpperCase()));
    expect(r.status).toBe(201);
    expect(r.json.UserAccount.Username).toBe(ascii);
    expect((await signUp(ascii)).status).toBe(409);
    expect(await signIn(ascii)).toContain(CONSENT);
  });
});

describe('no account whose name only looks like another', () => {
  it.each([
    ['a zero-width space', 'ad\u200Ba@example.com', 'invisible'],
    ['a zero-width joiner', 'ada\u200D@example.com', 'invisible'],
    ['a right-to-left mark', '\u200Fada@example.com', 'invisible'],
    ['a soft hyphen', 'a\u00ADda@example.com', 'invisible'],
    ['a control character', 'ad\u0007a@example.com', 'invisible'],
    ['a Cyrillic о among Latin letters', 'b\u043Eb@example.com', 'scripts'],
    ['a Cyrillic а in the domain', 'ada@ex\u0430mple.com', 'scripts'],
    ['a Greek ο among Latin letters', 'b\u03BFb@example.com', 'scripts'],
  ])('refuses %s with 400 InvalidValue naming Username', async (_, username, words) => {
    const r = await signUp(username);
    expect(r.status).toBe(400);
    expect(r.json.ResponseStatus.Errors).toEqual([
      expect.objectContaining({ ErrorCode: 'InvalidValue', FieldName: 'Username' }),
    ]);
    expect(r.json.ResponseStatus.Errors[0].Message).toContain(words);
  });

  it('accepts letters of one script, accents included, and Japanese in its three scripts and Latin', async () => {
    const tag = randomInt(1e9); // digits: letters would add the Latin script
    for (const username of [`josé.${tag}@example.com`, `иван.${tag}@пример.рф`, `山田たろウ.${tag}@例え.jp`])
      expect(await signUp(username)).toMatchObject({ status: 201 });
  });
});

describe('accounts stored before usernames were normalised', () => {
  it('keep signing in as they were written', async () => {
    // Stored the old way (trimmed, lowercased): fullwidth letters, or letters of two scripts.
    const tag = randomUUID().slice(0, 8);
    const names = [`${fullwidth(`eve.${tag}`)}@example.com`, `b\u043Eb.${tag}@example.com`];
    const hash = await hashPassword(PASSWORD);
    for (const username of names)
      await s.sql(
        `insert into user_account (id, username, password_hash, roles, status, failed_sign_ins, created_date_utc,
           last_modified_date_utc) values (?, ?, ?, '["user"]', 'Active', 0, now(), now())`,
        [randomUUID(), username, hash],
      );
    for (const username of names) expect(await signIn(username)).toContain(CONSENT);
  });
});
