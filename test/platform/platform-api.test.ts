// CONTRACT §22's platform API over HTTPS: car shares created, searched, read with their usage, changed, given an
// operator, and the platform's audit trail; each change also in the car share's own trail, as the Platform.

import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { Browser, type OAuthService } from '../oauth/support.js';
import { useRest } from '../rest-facade/support.js';
import { asOps } from '../support/actors.js';
import { atHost, trustOf } from '../support/car-shares.js';
import { at, baseUrlOf, createCarShare, DEFAULT_HOST, platformClient, platformUser } from './support.js';

describe('the platform API', () => {
  const env = useRest();
  const platform = () => env.tokenFor(platformUser());
  const P = (method: string, path: string, body?: unknown, token = platform()) =>
    at(env, DEFAULT_HOST, method, `/platform/api${path}`, { token, ...(body === undefined ? {} : { body }) });

  it('POST creates a car share that answers at once, with its first operator and a generated password', async () => {
    const r = await P('POST', '/carshares', {
      BaseUrl: `${baseUrlOf(env, 'alpha')}/`,
      Name: 'Alpha Cars',
      Operator: { Username: 'ops@alpha.example' },
      Limits: { CallerPerMinute: 50 },
    });
    expect(r.status).toBe(201);
    const id = r.json.CarShare.Id;
    expect(r.headers.get('location')).toBe(`https://carshare.test/platform/api/carshares/${id}`);
    expect(r.json.CarShare).toMatchObject({
      BaseUrl: baseUrlOf(env, 'alpha'),
      Host: 'alpha.localhost',
      Name: 'Alpha Cars',
      Status: 'Active',
      IsDefault: false,
      Issuer: `${baseUrlOf(env, 'alpha')}/api/oauth`,
      Limits: { CallerPerMinute: 50 },
      Usage: { UserAccounts: 1, Operators: 1, Cars: 0, Bookings: 0 },
    });
    expect(r.json.CarShare.InitialOperator).toBeUndefined();
    expect(r.json.InitialOperator).toMatchObject({ Username: 'ops@alpha.example' });
    expect(r.json.InitialOperator.Password).toMatch(/^\S{16,}$/);
    // No waiting: the 201 was sent once this instance knew it.
    const landing = await atHost(env.service.port, 'alpha.localhost', '/', {
      headers: { Accept: 'application/json' },
    });
    expect(landing.json).toMatchObject({ Name: 'Alpha Cars', CarShareId: id });
    const discovery = await atHost(
      env.service.port,
      'alpha.localhost',
      '/api/oauth/.well-known/openid-configuration',
    );
    expect(discovery.json.issuer).toBe(`${baseUrlOf(env, 'alpha')}/api/oauth`);
  });

  it('its JWKS answers and its first operator signs in to its dashboard with the password shown once', async () => {
    const made = await createCarShare(env, platform(), 'kilo');
    const base = baseUrlOf(env, 'kilo');
    const agent = await trustOf(env.service);
    const site = {
      origin: base,
      issuer: `${base}/api/oauth`,
      fetch: (url: string, init: Parameters<typeof fetch>[1] = {}) =>
        fetch(url.startsWith('https://') ? url : `${base}${url}`, { ...init, dispatcher: agent }),
    } as unknown as OAuthService;
    const jwks = (await (await site.fetch('/api/oauth/jwks')).json()) as { keys: unknown[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    const browser = new Browser(site);
    const login = await browser.follow(`${base}/dashboard`);
    expect(login.url).toMatch(new RegExp(`^${base}/api/oauth/interaction/`));
    // The authorization server takes the password and sends the code to the dashboard (which this service, with
    // tokens standing for test actors, then cannot turn into a real session: stopped at the callback).
    const callback = `${base}/dashboard/oauth/callback`;
    const done = await browser.submit(
      login.url,
      login.html,
      { username: made.InitialOperator.Username, password: made.InitialOperator.Password },
      callback,
    );
    expect(done.url).toMatch(new RegExp(`^${callback}\\?code=`));
    const other = new Browser(site);
    const wrong = await other.follow(`${base}/dashboard`);
    const refused = await other.submit(wrong.url, wrong.html, {
      username: made.InitialOperator.Username,
      password: 'not the password shown',
    });
    expect(refused.html).toContain('Wrong e-mail address or password.');
    await agent.close();
  });

  it('a given operator password is not echoed; the operator’s fields are named as sent', async () => {
    const r = await P('POST', '/carshares', {
      BaseUrl: baseUrlOf(env, 'beta'),
      Name: 'Beta',
      Operator: { Username: 'ops@beta.example', Password: 'a long and unusual passphrase' },
    });
    expect(r.status).toBe(201);
    expect(r.json.InitialOperator).toEqual({ Id: expect.any(String), Username: 'ops@beta.example' });
    const bad = await P('POST', '/carshares', {
      BaseUrl: baseUrlOf(env, 'gamma'),
      Name: 'Gamma',
      Operator: { Username: 'not an email' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus.Errors[0].FieldName).toBe('Operator.Username');
    // Nothing was made: the host is still free.
    expect((await P('GET', '/carshares?host=gamma.localhost')).json.Metadata.Total).toBe(0);
  });

  it('a bad BaseUrl is 400 InvalidFormat and a host taken is 409 AlreadyExists, both naming BaseUrl', async () => {
    for (const url of ['http://x.localhost', 'https://x.localhost/path', 'https://u@x.localhost', 'nope']) {
      const r = await P('POST', '/carshares', {
        BaseUrl: url,
        Name: 'Bad',
        Operator: { Username: 'o@x.example' },
      });
      expect(r.status, url).toBe(400);
      expect(r.json.ResponseStatus).toMatchObject({
        ErrorCode: 'InvalidFormat',
        Errors: [{ FieldName: 'BaseUrl' }],
      });
    }
    const taken = await P('POST', '/carshares', {
      BaseUrl: 'https://ALPHA.localhost:1',
      Name: 'Again',
      Operator: { Username: 'o@x.example' },
    });
    expect(taken.status).toBe(409);
    expect(taken.json.ResponseStatus).toMatchObject({
      ErrorCode: 'AlreadyExists',
      Errors: [{ FieldName: 'BaseUrl' }],
    });
    const dflt = await P('POST', '/carshares', {
      BaseUrl: 'https://carshare.test',
      Name: 'Default again',
      Operator: { Username: 'o@x.example' },
    });
    expect(dflt.status).toBe(409);
  });

  it('GET searches with status, host and name (any case, contained), newest first by default', async () => {
    const all = await P('GET', '/carshares');
    expect(all.status).toBe(200);
    expect(all.headers.get('etag')).toMatch(/^"/);
    expect(all.json.Metadata).toMatchObject({
      Total: 4,
      Sort: { By: 'CreatedDateUtc', Direction: 'Descending' },
    });
    expect(all.json.CarShares.map((c: { Name: string }) => c.Name)).toEqual([
      'Beta',
      'Car share kilo',
      'Alpha Cars',
      'Carshare',
    ]);
    expect((await P('GET', '/carshares?name=PHA%20c')).json.CarShares.map((c: any) => c.Name)).toEqual([
      'Alpha Cars',
    ]);
    expect((await P('GET', '/carshares?host=BETA.localhost')).json.CarShares.map((c: any) => c.Name)).toEqual(
      ['Beta'],
    );
    expect((await P('GET', '/carshares?status=Suspended')).json.Metadata.Total).toBe(0);
    expect((await P('GET', '/carshares?sort=name&limit=1&offset=1')).json.CarShares[0].Name).toBe('Beta');
    expect((await P('GET', '/carshares?sort=nope')).json.ResponseStatus.Errors[0].FieldName).toBe('Sort');
    // Usage is embedded: a search shows it only when asked (CONTRACT §3, §19), a single car share unless told not to.
    expect(all.json.CarShares[0].Usage).toBeUndefined();
    const embedded = await P('GET', '/carshares?embed=carshare.usage&host=alpha.localhost');
    expect(embedded.json.CarShares[0].Usage).toMatchObject({ UserAccounts: 1, Operators: 1 });
    expect((await P('GET', '/carshares?embed=all')).json.CarShares.every((c: any) => c.Usage)).toBe(true);
    const bare = await P('GET', `/carshares/${embedded.json.CarShares[0].Id}?embed=none`);
    expect(bare.json.CarShare.Usage).toBeUndefined();
    expect(bare.json.CarShare.Name).toBe('Alpha Cars');
    const csv = await P('GET', '/carshares?format=csv&filter=name');
    expect(csv.text.split('\r\n')[0]).toBe('Id,Name');
  });

  it('GET one shows its usage, counted from its own rows; an unknown or malformed Id is 404 or 400', async () => {
    const alpha = (await P('GET', '/carshares?host=alpha.localhost')).json.CarShares[0];
    // A second account in alpha, signed up there.
    const signUp = await atHost(env.service.port, 'alpha.localhost', '/api/useraccounts', {
      method: 'POST',
      body: {
        Username: 'someone@alpha.example',
        Password: 'a long and unusual passphrase',
        FirstName: 'A',
        LastName: 'B',
      },
    });
    expect(signUp.status).toBe(201);
    const one = await P('GET', `/carshares/${alpha.Id}`);
    expect(one.status).toBe(200);
    expect(one.json.CarShare.Usage).toMatchObject({ UserAccounts: 2, Operators: 1, ClientApplications: 0 });
    expect(one.json.CarShare.Usage.CountedDateUtc).toMatch(/Z$/);
    expect((await P('GET', '/carshares/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const bad = await P('GET', '/carshares/not-an-id');
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus.Errors[0].FieldName).toBe('Id');
  });

  it('PATCH changes Name and Limits (null returns a member to the deployment); BaseUrl is read-only', async () => {
    const alpha = (await P('GET', '/carshares?host=alpha.localhost')).json.CarShares[0];
    const r = await P('PATCH', `/carshares/${alpha.Id}`, {
      Name: 'Alpha Renamed',
      Limits: { CallerPerMinute: null, AuthPerMinute: 7 },
    });
    expect(r.status).toBe(202);
    expect(r.json.CarShare).toMatchObject({ Name: 'Alpha Renamed', Limits: { AuthPerMinute: 7 } });
    expect(r.json.CarShare.Limits.CallerPerMinute).toBeUndefined();
    const landing = await atHost(env.service.port, 'alpha.localhost', '/', {
      headers: { Accept: 'application/json' },
    });
    expect(landing.json.Name).toBe('Alpha Renamed');
    const ro = await P('PATCH', `/carshares/${alpha.Id}`, { BaseUrl: 'https://other.localhost' });
    expect(ro.status).toBe(400);
    expect(ro.json.ResponseStatus.Errors[0].FieldName).toBe('BaseUrl');
    const short = await P('PATCH', `/carshares/${alpha.Id}`, { Name: 'x' });
    expect(short.status).toBe(400);
    expect(short.json.ResponseStatus.Errors[0].FieldName).toBe('Name');
    const neg = await P('PATCH', `/carshares/${alpha.Id}`, { Limits: { CallerPerMinute: -1 } });
    expect(neg.status).toBe(400);
    expect(neg.json.ResponseStatus.Errors[0].FieldName).toBe('Limits.CallerPerMinute');
  });

  it('POST operators adds an account with roles user and ops there; a username taken there is 409', async () => {
    const alpha = (await P('GET', '/carshares?host=alpha.localhost')).json.CarShares[0];
    const r = await P('POST', `/carshares/${alpha.Id}/operators`, { Username: 'rescue@alpha.example' });
    expect(r.status).toBe(201);
    expect(r.json.UserAccount).toMatchObject({ Username: 'rescue@alpha.example', Roles: ['user', 'ops'] });
    expect(r.json.UserAccount.Password).toBeUndefined();
    expect(r.json.Password).toMatch(/^\S{16,}$/);
    const again = await P('POST', `/carshares/${alpha.Id}/operators`, { Username: 'RESCUE@alpha.example' });
    expect(again.status).toBe(409);
    expect(again.json.ResponseStatus.ErrorCode).toBe('AlreadyExists');
    const given = await P('POST', `/carshares/${alpha.Id}/operators`, {
      Username: 'second@alpha.example',
      Password: 'a long and unusual passphrase',
    });
    expect(given.status).toBe(201);
    expect(given.json.Password).toBeUndefined();
    // The same name is free in another car share.
    const beta = (await P('GET', '/carshares?host=beta.localhost')).json.CarShares[0];
    expect(
      (await P('POST', `/carshares/${beta.Id}/operators`, { Username: 'rescue@alpha.example' })).status,
    ).toBe(201);
    expect((await P('GET', `/carshares/${alpha.Id}`)).json.CarShare.Usage.Operators).toBe(3);
  });

  it('the platform audit names the caller and the car share; the car share’s own trail names the Platform', async () => {
    const client = platformClient();
    const made = await createCarShare(env, env.tokenFor(client), 'delta');
    const id = made.CarShare.Id;
    const trail = await P('GET', `/audit?carshareid=${id}`);
    expect(trail.status).toBe(200);
    expect(trail.json.AuditEntries).toEqual([
      expect.objectContaining({
        ActorType: 'ClientApplication',
        ActorId: client.id,
        Action: 'createCarShare',
        SubjectType: 'CarShare',
        SubjectId: id,
        CarShareId: id,
        RequestId: expect.any(String),
      }),
    ]);
    const all = await P('GET', '/audit?action=ADDCARSHAREOPERATOR');
    expect(all.json.Metadata.Total).toBe(3);
    expect((await P('GET', `/audit?actorid=${client.id}`)).json.Metadata.Total).toBe(1);
    expect((await P('GET', '/audit?fromutc=2999-01-01T00:00:00Z')).json.Metadata.Total).toBe(0);
    // In delta's own trail, read by one of its operators: the Platform, with no ActorId.
    const own = await atHost(env.service.port, 'delta.localhost', '/api/audit', {
      token: env.tokenFor(asOps()),
    });
    expect(own.status).toBe(200);
    expect(own.json.AuditEntries.map((e: any) => [e.ActorType, e.Action, e.SubjectType, e.ActorId])).toEqual(
      expect.arrayContaining([
        ['Platform', 'createCarShare', 'CarShare', undefined],
        ['Platform', 'createUserAccount', 'UserAccount', undefined],
      ]),
    );
  });
});
