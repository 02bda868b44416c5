// ClientApplication.connectedUsers: the people holding a live grant of an app, as the dashboard lists them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  dashboardOf,
  gql,
  type OAuthService,
  OPS,
  signUp,
  startOAuthService,
  userTokens,
} from './support.js';

let s: OAuthService;
beforeAll(async () => {
  s = await startOAuthService();
});
afterAll(async () => s?.close());

const REDIRECT = 'https://connected.example/callback';
const ONE = 'query($id: UUID!) { clientApplication(id: $id) { connectedUsers } }';

describe('connectedUsers', () => {
  it('counts each person who approved the app once, and none after it is suspended', async () => {
    const dash = await dashboardOf(s);
    const ops = (await userTokens(s, dash, dash.redirectUri, OPS, 'ops')).access_token;
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['account:read'],
      redirectUris: [REDIRECT],
    });
    const count = async () => (await gql(s, ops, ONE, { id: app.id })).data?.clientApplication.connectedUsers;
    expect(await count()).toBe(0);
    const a = await signUp(s);
    const b = await signUp(s);
    await userTokens(s, app, REDIRECT, a, 'account:read');
    await userTokens(s, app, REDIRECT, a, 'account:read');
    expect(await count()).toBe(1);
    await userTokens(s, app, REDIRECT, b, 'account:read');
    expect(await count()).toBe(2);
    const list = await gql(
      s,
      ops,
      '{ clientApplications { nodes { clientId isFirstParty connectedUsers } } }',
    );
    // The operator signed in through the dashboard's own app.
    expect(
      list.data?.clientApplications.nodes.find((n: { isFirstParty: boolean }) => n.isFirstParty)
        .connectedUsers,
    ).toBe(1);
    await gql(s, ops, 'mutation($id: UUID!) { suspendClientApplication(id: $id) { id } }', { id: app.id });
    expect(await count()).toBe(0);
  });
});
