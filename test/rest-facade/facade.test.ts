// The facade on its own, handed a schema and an execute function: a failing execution is a masked 500,
// the statuses and masked message are those of the error table it is given, rows naming unknown operations or
// arguments refuse to start, and documents are cached by shape.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type FacadeDeps } from '../../rest-facade/facade.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';
import { errorTable, fieldErrorCodes } from '../../src/shared/errors.js';

const schema = buildSchema(modules);

async function serve(deps: Partial<FacadeDeps>) {
  const facade = createFacade({
    schema,
    errors: errorTable,
    execute: async () => ({ data: null }),
    ...deps,
  });
  const koa = new Koa();
  // What the app's edge does before the facade runs: the caller, resolved once (anonymous here).
  koa.use((ctx, next) => {
    ctx.state.caller = {
      subject: null,
      key: 'anonymous',
      carShare: { id: '00000000-0000-4000-8000-000000000001', baseUrl: 'https://localhost' },
    };
    return next();
  });
  koa.use(facade.middleware);
  const server = http.createServer(koa.callback()).listen(0, '127.0.0.1');
  await new Promise((ok) => server.once('listening', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { facade, base, close: () => new Promise((ok) => server.close(ok)) };
}

describe('a failing execution', () => {
  const errors: unknown[] = [];
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve({
      execute: async () => {
        throw new Error('database on fire at /srv/app/src/db.ts:12');
      },
      onError: (err) => errors.push(err),
    });
  });
  afterAll(async () => s.close());

  it('is a 500 InternalServerError with the request id and nothing of the failure', async () => {
    const r = await fetch(`${s.base}/api/cars`);
    expect(r.status).toBe(500);
    const body = (await r.json()) as any;
    expect(body.ResponseStatus).toMatchObject({
      ErrorCode: 'InternalServerError',
      Message: 'An unexpected error occurred. Quote the request id to support.',
      Errors: [],
      Meta: { RequestId: expect.any(String) },
    });
    expect(JSON.stringify(body)).not.toMatch(/fire|db\.ts|stack/i);
    expect(errors).toHaveLength(1);
    const xml = await fetch(`${s.base}/api/cars?format=xml`);
    expect(xml.status).toBe(500);
    expect(await xml.text()).toContain('<ErrorCode>InternalServerError</ErrorCode>');
  });

  it('a GraphQL error without a known code is masked the same way', async () => {
    const t = await serve({
      execute: async () => ({ data: null, errors: [{ message: 'secret detail', extensions: {} }] }),
    });
    try {
      const r = await fetch(`${t.base}/api/cars`);
      expect(r.status).toBe(500);
      const body = (await r.json()) as any;
      expect(body.ResponseStatus.ErrorCode).toBe('InternalServerError');
      expect(body.ResponseStatus.Message).toBe(errorTable.masked);
      expect(JSON.stringify(body)).not.toContain('secret detail');
    } finally {
      await t.close();
    }
  });

  it('leaves paths outside /api, and /api/oauth, to the next middleware', async () => {
    expect((await fetch(`${s.base}/graphql`)).status).toBe(404);
    expect(await (await fetch(`${s.base}/api/oauth/jwks`)).text()).toBe('Not Found');
    expect(((await (await fetch(`${s.base}/api/nothing`)).json()) as any).ResponseStatus.ErrorCode).toBe(
      'NotFound',
    );
  });
});

describe('the paths it owns', () => {
  it('are those it answers, which the app lets skip everything mounted for other paths', () => {
    const facade = createFacade({ schema, errors: errorTable, execute: async () => ({ data: null }) });
    const owned = ['/api/cars', '/api/cars/1', '/api/nothing', '/api/openapi.json', '/json/reply/GetCar'];
    const others = [
      '/api/oauth',
      '/api/oauth/token',
      '/api/oauth/interaction/x',
      '/graphql',
      '/docs',
      '/',
      '/apix',
    ];
    expect(owned.filter((p) => !facade.owns(p))).toEqual([]);
    expect(others.filter((p) => facade.owns(p))).toEqual([]);
  });
});

describe('the error table', () => {
  it('is the one the facade is given: it keeps no statuses of its own', async () => {
    const t = await serve({
      errors: { ...errorTable, statusOf: { ...errorTable.statusOf, NotFound: 410 }, masked: 'Sorry.' },
      execute: async () => ({ data: null, errors: [{ message: 'secret detail', extensions: {} }] }),
    });
    try {
      expect((await fetch(`${t.base}/api/nothing`)).status).toBe(410);
      const masked = await fetch(`${t.base}/api/cars`);
      expect(masked.status).toBe(500);
      expect(((await masked.json()) as any).ResponseStatus.Message).toBe('Sorry.');
    } finally {
      await t.close();
    }
  });

  it('holds every code the facade answers with; field errors use field codes', () => {
    const root = resolve(import.meta.dirname, '../../rest-facade');
    const sources = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(join(root, f), 'utf8'))
      .join('\n');
    const named = (calls: string) =>
      [...sources.matchAll(new RegExp(`\\b(?:${calls})\\(\\s*'([A-Z]\\w+)'`, 'g'))].map((m) => m[1]!);
    const fieldCodes = named('fail|fieldError');
    const codes = named('restError');
    expect(fieldCodes.length).toBeGreaterThan(10);
    expect(codes.length).toBeGreaterThan(5);
    expect(fieldCodes.filter((c) => !(fieldErrorCodes as readonly string[]).includes(c))).toEqual([]);
    expect(codes.filter((c) => !Object.hasOwn(errorTable.statusOf, c))).toEqual([]);
  });
});

describe('the route table', () => {
  it('refuses a row whose operation or path argument the schema lacks', () => {
    const execute = async () => ({ data: null });
    const row = { method: 'GET', path: '/things/{Id}', summary: 'x' } as const;
    expect(() =>
      createFacade({
        schema,
        errors: errorTable,
        execute,
        routes: [{ routes: [{ ...row, operation: 'things' }] }],
      }),
    ).toThrow(/no query things/);
    expect(() =>
      createFacade({
        schema,
        errors: errorTable,
        execute,
        routes: [{ routes: [{ ...row, operation: 'car', path: '/cars/{CarId}' }] }],
      }),
    ).toThrow(/no argument carId/);
  });

  it('caches one validated document per shape', async () => {
    const seen: unknown[] = [];
    const t = await serve({
      execute: async (doc) => {
        seen.push(doc);
        return {
          data: {
            cars: {
              total: 0,
              limit: 1,
              offset: 0,
              sort: { by: 'make', direction: 'Ascending' },
              distinct: null,
              nodes: [],
            },
          },
        };
      },
    });
    try {
      for (const q of ['limit=1', 'limit=2&sort=make', 'LIMIT=3', 'filter=make', 'filter=Make'])
        await fetch(`${t.base}/api/cars?${q}`);
      // Same arguments and selection → the same document object; a filter is another shape.
      expect(seen[0]).toBe(seen[2]);
      expect(seen[3]).toBe(seen[4]);
      expect(seen[0]).not.toBe(seen[1]);
      expect(t.facade.documents.size).toBe(3);
    } finally {
      await t.close();
    }
  });
});
