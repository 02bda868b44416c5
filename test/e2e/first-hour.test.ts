// The first hour of an integrator (CONTRACT §15) over real HTTPS: the landing page, the API reference and GraphiQL
// in a real browser (nothing fetched from another origin, no console error), CORS, the guide in the OpenAPI
// document, and the webhook `Secret` alias.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import { defaultCarShareId } from '../support/scope.js';
import { type E2E, startE2E } from './dashboard.support.js';

const APP = 'https://app.example';
let e: E2E;
beforeAll(async () => {
  e = await startE2E({ env: { CORS_ORIGINS: `${APP}, http://localhost:5173` } });
}, 60_000);
afterAll(async () => e?.close());

async function clientToken(scopes: string): Promise<string> {
  const c = await createClientFromCli(
    e.service.db,
    ['--name', `First hour ${scopes}`, '--grant', 'client_credentials', '--scopes', scopes],
    defaultCarShareId(),
  );
  const r = await e.s.fetch('/api/oauth/token', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${c.ClientId}:${c.ClientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: scopes }).toString(),
  });
  expect(r.status, await r.clone().text()).toBe(200);
  return ((await r.json()) as { access_token: string }).access_token;
}

describe('GET /', () => {
  it('answers JSON with absolute links for Accept: application/json', async () => {
    const r = await e.s.fetch('/', { headers: { accept: 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toEqual({
      Name: 'Carshare',
      CarShareId: inject('defaultCarShareId'),
      Links: {
        Docs: `${e.origin}/docs`,
        OpenApi: `${e.origin}/api/openapi.json`,
        GraphQL: `${e.origin}/graphql`,
        OAuthDiscovery: `${e.origin}/api/oauth/.well-known/openid-configuration`,
        Dashboard: `${e.origin}/dashboard`,
      },
    });
  });

  it('answers an HTML page linking the reference, dashboard, GraphQL, OpenAPI and discovery', async () => {
    const r = await e.s.fetch('/', { headers: { accept: 'text/html' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await r.text();
    for (const path of [
      '/docs',
      '/dashboard',
      '/graphql',
      '/api/openapi.json',
      '/api/oauth/.well-known/openid-configuration',
    ])
      expect(page).toContain(`href="${e.origin}${path}"`);
  });
});

describe('the reference and GraphiQL in a browser', () => {
  it('/docs renders the OpenAPI document with the guide, from this origin only, without console errors', async () => {
    const { context, page, watch } = await e.newContext();
    try {
      await page.goto(`${e.origin}/docs`);
      await page.getByRole('heading', { name: 'Getting started' }).waitFor({ timeout: 30_000 });
      await page.getByRole('heading', { name: 'Authentication', exact: true }).waitFor();
      const text = await page.evaluate<string>('document.body.innerText');
      // Markdown rendered (no literal backticks in prose), a navigation pane with the operations' groups.
      expect(text).toContain('Authorization: Bearer');
      expect(text).not.toContain('`Authorization');
      expect(text).toMatch(/Search cars/);
      expect(text).toContain('cars:read');
      expect(await page.locator('nav, aside').count()).toBeGreaterThan(0);
      await page.getByText('Search cars').first().click();
      await page.waitForTimeout(1000); // anything the page would still fetch
      expect(watch.consoleErrors).toEqual([]);
      expect(watch.foreignRequests).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('GET /graphql from a browser serves GraphiQL, which loads the schema from this origin only', async () => {
    const { context, page, watch } = await e.newContext();
    try {
      const seen: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && new URL(r.url()).pathname === '/graphql') seen.push(r.url());
      });
      const r = await page.goto(`${e.origin}/graphql`);
      expect(r?.status()).toBe(200);
      expect(r?.headers()['content-security-policy']).toContain("default-src 'self'");
      await page.locator('.graphiql-container').first().waitFor({ timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      expect(seen.length).toBeGreaterThan(0); // the introspection query
      // A first visit opens on a query of this API, and a Headers template saying where the token goes.
      // Monaco draws spaces as no-break spaces.
      const editors = async () =>
        (await page.evaluate<string>("document.querySelector('.graphiql-container').innerText")).replace(
          /\u00a0/g,
          ' ',
        );
      expect(await editors()).toContain('query FirstCars');
      await page.locator('[data-name="headers"]').first().click();
      await page.waitForFunction(
        "document.querySelector('.graphiql-container').innerText.replace(/\\u00a0/g, ' ').includes('Bearer ACCESS_TOKEN')",
        undefined,
        { timeout: 10_000 },
      );
      expect(watch.consoleErrors).toEqual([]);
      expect(watch.foreignRequests).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('serves the renderer bundles itself, gzipped for clients that take it, and revalidated by ETag', async () => {
    const r = await e.s.fetch('/docs/assets/scalar.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect((await r.text()).length).toBeGreaterThan(100_000);
    const again = await e.s.fetch('/docs/assets/scalar.js', {
      headers: { 'accept-encoding': 'gzip', 'if-none-match': r.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('GraphQL clients still get GraphQL at GET /graphql', async () => {
    const r = await e.s.fetch('/graphql?query=%7B__typename%7D', {
      headers: { accept: 'application/json', 'content-type': 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('the OpenAPI document', () => {
  it('carries the guide and describes operations without contract citations or a wall of statuses', async () => {
    const doc = (await (await e.s.fetch('/api/openapi.json')).json()) as {
      info: { description: string };
      paths: Record<string, Record<string, { description?: string; responses: object }>>;
    };
    expect(doc.info.description).toContain('## Getting started');
    expect(doc.info.description).toContain('## Authentication');
    expect(doc.info.description).toContain('--cacert');
    expect(doc.info.description).toMatch(/\| `cars:read` \|/);
    expect(doc.info.description).toContain('15 minutes');
    const operations = Object.values(doc.paths).flatMap((p) => Object.values(p));
    expect(JSON.stringify(operations)).not.toContain('CONTRACT');
    // Success plus the errors this operation can answer; those of every request are listed once in the guide.
    for (const o of operations) expect(Object.keys(o.responses)).not.toContain('429');
    expect(Math.max(...operations.map((o) => Object.keys(o.responses).length))).toBeLessThanOrEqual(8);
  });
});

describe('CORS (CORS_ORIGINS lists two origins)', () => {
  it('answers a preflight from an allowed origin on the API, GraphQL and the token endpoint with 204', async () => {
    for (const path of [
      '/api/cars',
      '/api/cars/8a4f0ae5-5b0b-4a57-9e0c-3f1f3b0f9f11',
      '/graphql',
      '/api/oauth/token',
    ]) {
      const r = await e.s.fetch(path, {
        method: 'OPTIONS',
        headers: {
          origin: APP,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(r.status, path).toBe(204);
      expect(r.headers.get('access-control-allow-origin')).toBe(APP);
      expect(r.headers.get('access-control-allow-methods')).toMatch(/POST/);
      const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const h of ['authorization', 'content-type', 'if-none-match']) expect(allowed).toContain(h);
      expect(Number(r.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('lets an allowed origin read the answer and its headers, errors and the token endpoint included', async () => {
    const token = await clientToken('cars:read');
    const ok = await e.s.fetch('/api/cars', { headers: { origin: APP, authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
    const exposed = (ok.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    for (const h of [
      'etag',
      'location',
      'request-id',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
    ])
      expect(exposed).toContain(h);
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    const denied = await e.s.fetch('/api/cars', { headers: { origin: 'http://localhost:5173' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const tokenAnswer = await e.s.fetch('/api/oauth/token', {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=nothing',
    });
    expect(tokenAnswer.status).toBe(401);
    expect(tokenAnswer.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('gives an origin not listed, and a request without Origin, no CORS header at all', async () => {
    const pre = await e.s.fetch('/api/cars', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(pre.status).not.toBe(204);
    const discovery = await e.s.fetch('/api/oauth/.well-known/openid-configuration', {
      headers: { origin: 'https://evil.example' },
    });
    expect(discovery.status).toBe(200);
    const plain = await e.s.fetch('/api/cars');
    for (const r of [pre, discovery, plain])
      expect([...r.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });
});

describe('webhook subscriptions', () => {
  it('take a top-level Secret as an alias of Config.Secret', async () => {
    const token = await clientToken('webhooks:write webhooks:read');
    const secret = Buffer.alloc(32, 7).toString('base64');
    const r = await e.s.fetch('/api/webhooks/subscriptions', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        Name: 'Top-level secret',
        Events: ['carbooking_approve'],
        Url: 'https://127.0.0.1:9/hook',
        Secret: secret,
      }),
    });
    expect(r.status).toBe(201);
    const body = (await r.json()) as { WebhookSubscriptions: { Secret: string }[] };
    expect(body.WebhookSubscriptions[0]!.Secret).toBe(`whsec_${secret}`);
    const bad = await e.s.fetch('/api/webhooks/subscriptions', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        Name: 'Bad secret',
        Events: ['carbooking_cancel'],
        Url: 'https://127.0.0.1:9/x',
        Secret: 'short',
      }),
    });
    expect(bad.status).toBe(400);
    expect(
      ((await bad.json()) as { ResponseStatus: { Errors: { FieldName: string }[] } }).ResponseStatus
        .Errors[0]!.FieldName,
    ).toBe('Secret');
  });
});
