// An error case for every route of the table, driven by the OpenAPI document so a new route is covered
// the day it lands: unknown ids are 404 NotFound (ratings: a bad subject type), lists refuse a bad limit,
// creations refuse an empty body. Success cases live in the per-resource tests.
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { asOps } from '../support/actors.js';
import { useRest } from './support.js';

const env = useRest();
let routes: [string, string][];
/** Query parameter names each route declares, lowercased: searches take `limit`, ranges `fromutc`. */
let params: Map<string, string[]>;
beforeAll(async () => {
  const doc = (await env.call('GET', '/api/openapi.json')).json;
  const paths = doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
  routes = Object.entries(paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => [m.toUpperCase(), path] as [string, string]),
  );
  params = new Map(
    Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([m, op]) => [
        `${m.toUpperCase()} ${path}`,
        (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name.toLowerCase()),
      ]),
    ),
  );
});

it('every route answers an error in ResponseStatus terms for a request it must refuse', async () => {
  const tokens = [env.tokenFor(asOps()), env.tokenFor((await createUser(env.h)).actor)];
  const seen: string[] = [];
  for (const [method, path] of routes) {
    const hasId = /\{\w+\}/.test(path);
    const url = path.replace(/\{(\w+)\}/g, (_, p: string) =>
      p === 'SubjectType'
        ? 'Planet'
        : path.includes('/deliveries/')
          ? randomBytes(16).toString('hex')
          : randomUUID(),
    );
    const declared = params.get(`${method} ${path}`) ?? [];
    // A search refuses limit=0; a report over a range refuses a date that is not UTC.
    const query =
      method !== 'GET' || hasId
        ? ''
        : declared.includes('fromutc') && !declared.includes('limit')
          ? '?fromutc=2026-01-01T00:00:00'
          : '?limit=0';
    for (const token of tokens) {
      const r = await env.call(method, `${url}${query}`, {
        token,
        ...(method === 'POST' && !hasId ? { body: {} } : {}),
      });
      const expected = path.startsWith('/api/ratings') || !hasId ? [400, 403] : [400, 403, 404];
      expect(
        expected,
        `${method} ${url} as ${token === tokens[0] ? 'ops' : 'user'}: ${r.status} ${r.text}`,
      ).toContain(r.status);
      expect(r.json.ResponseStatus.Errors).toBeInstanceOf(Array);
      if (hasId && r.status === 404) expect(r.json.ResponseStatus.ErrorCode).toBe('NotFound');
      if (r.status === 400) expect(r.json.ResponseStatus.Errors.length).toBeGreaterThan(0);
    }
    seen.push(`${method} ${path}`);
  }
  expect(seen.length).toBe(routes.length);
  expect(seen.length).toBeGreaterThanOrEqual(50);
});
