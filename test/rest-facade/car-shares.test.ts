// CONTRACT §19, §20, §26 at the request path: the host selects the car share (X-Forwarded-Host only behind a
// trusted proxy), every absolute URL begins with its BaseUrl (never the host as sent), cached answers and ETags are
// its own, and with UNKNOWN_HOST=reject a host naming none is 404 everywhere but the probes.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { asOps, asUser } from '../support/actors.js';
import { addCarShare, atHost, plainAtHost, type TestCarShare, trustOf } from '../support/car-shares.js';
import { PUBLIC_URL, REST_CAR, type RestEnv, startRest, useRest } from './support.js';

const DEFAULT_HOST = new URL(PUBLIC_URL).host;

const signUp = (n: string) => ({
  Username: `${n}@example.com`,
  Password: 'a long and unusual passphrase',
  FirstName: 'A',
  LastName: 'B',
});

describe('one service, three car shares', () => {
  const env = useRest();
  let b: TestCarShare;
  let c: TestCarShare;
  const port = () => env.service.port;
  const at = (host: string, path: string, init: Parameters<typeof atHost>[3] = {}) =>
    atHost(port(), host, path, init);

  beforeAll(async () => {
    b = await addCarShare({
      host: 'second.localhost',
      port: port(),
      httpPort: env.service.httpPort,
      name: 'Second',
    });
    c = await addCarShare({
      host: 'third.localhost',
      port: port(),
      httpPort: env.service.httpPort,
      name: 'Third',
    });
  });

  it('GET / names the car share of the host, in any case and with any port', async () => {
    const json = { Accept: 'application/json' };
    const dflt = await at(DEFAULT_HOST, '/', { headers: json });
    expect(dflt.json.Name).toBe('Carshare');
    expect(dflt.json.Links.Docs).toBe(`${PUBLIC_URL}/docs`);
    const second = await at('SECOND.localhost:1234', '/', { headers: json });
    expect(second.json).toMatchObject({
      Name: 'Second',
      CarShareId: b.id,
      Links: { Docs: `${b.baseUrl}/docs` },
    });
    expect((await at('third.localhost.', '/', { headers: json })).json.CarShareId).toBe(c.id);
    const html = await at('second.localhost', '/', { headers: { Accept: 'text/html' } });
    expect(html.text).toContain('<h1>Second</h1>');
  });

  it('Location, Meta.Help, OpenAPI servers and the ServiceStack BaseUrl begin with the car share’s BaseUrl', async () => {
    const created = await at('second.localhost', '/api/useraccounts', {
      method: 'POST',
      body: signUp('loc-b'),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(
      `${b.baseUrl}/api/useraccounts/${created.json.UserAccount.Id}`,
    );
    const missing = await at('third.localhost', '/api/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.json.ResponseStatus.Meta.Help).toBe(`${c.baseUrl}/docs#error-NotFound`);
    const openapi = await at('second.localhost', '/api/openapi.json');
    expect(openapi.json.servers).toEqual([{ url: b.baseUrl }]);
    expect(openapi.text).not.toContain(PUBLIC_URL);
    expect(openapi.json.info.description).toContain(`${b.baseUrl}/api/oauth/token`);
    // The command line is told which car share (CONTRACT §22).
    expect(openapi.json.info.description).toContain(`create-client --car-share ${b.baseUrl}`);
    // Its curl commands trust the file that verifies its host: the local CA's (CONTRACT §19).
    expect(openapi.json.info.description).toMatch(/curl --cacert \S*tls\/ca\.crt /);
    const third = await at('third.localhost', '/api/openapi.json');
    expect(third.json.servers).toEqual([{ url: c.baseUrl }]);
    const dflt = await at(DEFAULT_HOST, '/api/openapi.json');
    expect(dflt.json.servers).toEqual([{ url: PUBLIC_URL }]);
    expect(dflt.json.info.description).not.toContain('--car-share');
    const types = await at('second.localhost', '/types/typescript');
    expect(types.text).toContain(`BaseUrl: ${b.baseUrl}\n`);
    expect(types.headers.get('etag')).not.toBe(
      (await at('third.localhost', '/types/typescript')).headers.get('etag'),
    );
  });

  it('a host naming no car share is served as the default one’s, under PUBLIC_URL (UNKNOWN_HOST=default)', async () => {
    const json = await at('evil.example', '/', { headers: { Accept: 'application/json' } });
    expect(json.json.Name).toBe('Carshare');
    expect(json.json.Links.Docs).toBe(`${PUBLIC_URL}/docs`);
    const created = await at('evil.example', '/api/useraccounts', { method: 'POST', body: signUp('evil') });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toMatch(new RegExp(`^${PUBLIC_URL}/api/useraccounts/`));
    expect((await at('evil.example', '/api/openapi.json')).json.servers).toEqual([{ url: PUBLIC_URL }]);
    expect((await at('evil.example', '/api/nothing')).json.ResponseStatus.Meta.Help).toBe(
      `${PUBLIC_URL}/docs#error-NotFound`,
    );
  });

  it('a car share’s host, its certificate verified, gets links under its BaseUrl', async () => {
    const trusted = await trustOf(env.service);
    try {
      const r = await at('second.localhost', '/', { trusted, headers: { Accept: 'application/json' } });
      expect(r.json).toMatchObject({ Name: 'Second', Links: { OpenApi: `${b.baseUrl}/api/openapi.json` } });
    } finally {
      await trusted.close();
    }
  });

  it('X-Forwarded-Host is ignored without TRUST_PROXY', async () => {
    const r = await at(DEFAULT_HOST, '/', {
      headers: { Accept: 'application/json', 'X-Forwarded-Host': 'second.localhost' },
    });
    expect(r.json.Name).toBe('Carshare');
  });

  it('the plain-HTTP refusal names the car share’s own address', async () => {
    const r = await plainAtHost(env.service.httpPort, 'second.localhost', '/api/cars');
    expect(r.status).toBe(403);
    expect(r.json.ResponseStatus.ErrorCode).toBe('HttpsRequired');
    expect(r.json.ResponseStatus.Message).toContain(b.baseUrl);
    expect(r.json.ResponseStatus.Meta.Help).toBe(`${b.baseUrl}/docs#error-HttpsRequired`);
  });

  it('identical answers of two car shares have different ETags; one car share’s ETag is never a 304 at another', async () => {
    const ops = env.tokenFor(asOps());
    const atB = await at('second.localhost', '/api/cars', { token: ops });
    const atC = await at('third.localhost', '/api/cars', { token: ops });
    expect(atB.status).toBe(200);
    expect(atB.text).toBe(atC.text);
    const etagB = atB.headers.get('etag')!;
    const etagC = atC.headers.get('etag')!;
    expect(etagB).toMatch(/^"[\w-]+"$/);
    expect(etagB).not.toBe(etagC);
    // Its own ETag revalidates (answered in front of Koa); another car share's does not (there, or through Koa).
    expect(
      (await at('second.localhost', '/api/cars', { token: ops, headers: { 'If-None-Match': etagB } })).status,
    ).toBe(304);
    const crossed = await at('third.localhost', '/api/cars', {
      token: ops,
      headers: { 'If-None-Match': etagB },
    });
    expect(crossed.status).toBe(200);
    expect(crossed.headers.get('etag')).toBe(etagC);
    // Through Koa too (an Origin header keeps a request off the front path).
    const viaKoa = await at('third.localhost', '/api/cars', {
      token: ops,
      headers: { 'If-None-Match': etagB, Origin: 'https://app.example' },
    });
    expect(viaKoa.status).toBe(200);
  });

  it('a write in one car share makes nothing stale in another, and its data is another’s unknown Id', async () => {
    const owner = await at('second.localhost', '/api/useraccounts', {
      method: 'POST',
      body: signUp('owner-b'),
    });
    const ownerToken = env.tokenFor(asUser(owner.json.UserAccount.Id));
    const ops = env.tokenFor(asOps());
    const before = await at('third.localhost', '/api/cars', { token: ops });
    const etagC = before.headers.get('etag')!;
    const car = await at('second.localhost', '/api/cars', {
      method: 'POST',
      token: ownerToken,
      body: REST_CAR,
    });
    expect(car.status).toBe(201);
    const carId = car.json.Car.Id as string;
    expect(car.headers.get('location')).toBe(`${b.baseUrl}/api/cars/${carId}`);
    // B's own answers show the write at once; C's cached one is still current.
    expect((await at('second.localhost', `/api/cars/${carId}`, { token: ops })).status).toBe(200);
    expect(
      (await at('third.localhost', '/api/cars', { token: ops, headers: { 'If-None-Match': etagC } })).status,
    ).toBe(304);
    // The Id of B's car is unknown at C and at the default car share: REST and GraphQL.
    for (const host of ['third.localhost', DEFAULT_HOST]) {
      const rest = await at(host, `/api/cars/${carId}`, { token: ops });
      expect(rest.status).toBe(404);
      expect(rest.json.ResponseStatus.ErrorCode).toBe('NotFound');
      const gql = await at(host, '/graphql', {
        method: 'POST',
        token: ops,
        body: { query: `{ car(id: "${carId}") { id } }` },
      });
      expect(gql.json.errors[0].extensions.code).toBe('NotFound');
    }
    const list = await at('third.localhost', '/api/cars', { token: ops });
    expect(list.json.Cars).toEqual([]);
  });
});

describe('behind a trusted proxy', () => {
  let env: RestEnv;
  let b: TestCarShare;
  beforeAll(async () => {
    env = await startRest({ TRUST_PROXY: 'true' });
    await env.h.reset();
    b = await addCarShare({
      host: 'second.localhost',
      port: env.service.port,
      httpPort: env.service.httpPort,
      name: 'Second',
    });
  });
  afterAll(async () => env?.close());

  it('the first X-Forwarded-Host value selects the car share, and links are under its BaseUrl', async () => {
    const r = await atHost(env.service.port, DEFAULT_HOST, '/', {
      headers: { Accept: 'application/json', 'X-Forwarded-Host': 'second.localhost, proxy.internal' },
    });
    expect(r.json).toMatchObject({
      Name: 'Second',
      CarShareId: b.id,
      Links: { GraphQL: `${b.baseUrl}/graphql` },
    });
    const plain = await atHost(env.service.port, 'evil.example', '/api/nothing', {
      headers: { 'X-Forwarded-Host': 'second.localhost', 'X-Forwarded-Proto': 'http' },
    });
    expect(plain.status).toBe(403);
    expect(plain.json.ResponseStatus.Message).toContain(b.baseUrl);
  });
});

describe('UNKNOWN_HOST=reject', () => {
  let env: RestEnv;
  beforeAll(async () => {
    env = await startRest({ UNKNOWN_HOST: 'reject' });
    await env.h.reset();
    await addCarShare({
      host: 'second.localhost',
      port: env.service.port,
      httpPort: env.service.httpPort,
      name: 'Second',
    });
  });
  afterAll(async () => env?.close());
  const at = (path: string, init: Parameters<typeof atHost>[3] = {}) =>
    atHost(env.service.port, 'evil.example', path, init);

  it('a host naming no car share is 404 UnknownHost on the API, /graphql, OAuth and pages; probes answer', async () => {
    const rest = await at('/api/cars');
    expect(rest.status).toBe(404);
    expect(rest.json.ResponseStatus).toMatchObject({
      ErrorCode: 'NotFound',
      Meta: { Reason: 'UnknownHost' },
    });
    const created = await at('/api/useraccounts', { method: 'POST', body: signUp('rejected') });
    expect(created.status).toBe(404);
    const gql = await at('/graphql', { method: 'POST', body: { query: '{ __typename }' } });
    expect(gql.status).toBe(404);
    expect(gql.json.errors[0].extensions.code).toBe('NotFound');
    const oauth = await at('/api/oauth/.well-known/openid-configuration');
    expect(oauth.status).toBe(404);
    const page = await at('/', { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    for (const probe of ['/healthz', '/readyz']) expect((await at(probe)).status).toBe(200);
    // The known hosts are served.
    const known = await atHost(env.service.port, 'second.localhost', '/', {
      headers: { Accept: 'application/json' },
    });
    expect(known.json.Name).toBe('Second');
    expect((await atHost(env.service.port, DEFAULT_HOST, '/api/openapi.json')).status).toBe(200);
  });

  it('the edge’s refusals come in the negotiated format, written as the facade writes its errors', async () => {
    const xml = await at('/api/cars?format=xml');
    expect(xml.status).toBe(404);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    expect(xml.text).toMatch(/<ResponseStatus><ErrorCode>NotFound<\/ErrorCode><Message>No car share is at /);
    // No car share: the help link is under the deployment's own address.
    expect(xml.text).toContain(`${PUBLIC_URL}/docs#error-NotFound`);
    // A path no route serves, on a known host, in CSV: the car share's address.
    const csv = await atHost(env.service.port, 'second.localhost', '/no-such-page?format=csv');
    expect(csv.status).toBe(404);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.text).toContain('NotFound');
    expect(csv.text).toContain('No route for GET /no-such-page');
  });

  it('a plain-HTTP request target no URL parser reads is refused like any other, and the service goes on', async () => {
    for (const target of ['http://[', '//elsewhere.example/api/cars?format=html']) {
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(env.service.httpPort, '127.0.0.1', () =>
          socket.write(`GET ${target} HTTP/1.1\r\nHost: second.localhost\r\nConnection: close\r\n\r\n`),
        );
        let text = '';
        socket.on('data', (d: Buffer) => {
          text += d.toString();
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(reply, target).toMatch(/^HTTP\/1\.1 403 /);
      expect(reply, target).toContain('HttpsRequired');
      expect(reply, target).not.toContain('elsewhere.example');
    }
    expect((await at('/api/cars')).status).toBe(404);
  });

  it('a WebSocket upgrade at /graphql is refused with 404 before it becomes one', async () => {
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`wss://127.0.0.1:${env.service.port}/graphql`, 'graphql-transport-ws', {
          headers: { host },
          rejectUnauthorized: false,
        });
        ws.on('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (d: Buffer) => {
            body += d.toString();
          });
          res.on('end', () => {
            expect(JSON.parse(body).ResponseStatus.Meta.Reason).toBe('UnknownHost');
            resolve(res.statusCode ?? 0);
          });
        });
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', (e) => (e.message.includes('Unexpected server response') ? undefined : reject(e)));
      });
    expect(await status('evil.example')).toBe(404);
    expect(await status('second.localhost')).toBe(101);
  });

  it('the plain-HTTP listener answers an unknown host 404 too, in the negotiated format', async () => {
    const r = await plainAtHost(env.service.httpPort, 'evil.example', '/api/cars');
    expect(r.status).toBe(404);
    expect(r.json.ResponseStatus).toMatchObject({
      Errors: [],
      Meta: { Reason: 'UnknownHost', Help: `${PUBLIC_URL}/docs#error-NotFound` },
    });
    const xml = await plainAtHost(env.service.httpPort, 'evil.example', '/api/cars?format=xml');
    expect(xml.status).toBe(404);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    expect(xml.text).toMatch(/<ResponseStatus><ErrorCode>NotFound<\/ErrorCode>/);
    // A known host's plain-HTTP refusal: 403 HttpsRequired naming its own address, as the chain writes it.
    const known = await plainAtHost(env.service.httpPort, 'second.localhost', '/api/cars?format=csv');
    expect(known.status).toBe(403);
    expect(known.headers.get('content-type')).toContain('text/csv');
    expect(known.text).toContain('HttpsRequired');
  });
});
