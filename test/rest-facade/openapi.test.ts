// The OpenAPI 3.1 reference: generated from the route table, valid for an OpenAPI linter (redocly), every
// path answering something other than 404. (/docs, which renders it in a browser, is tested in test/e2e.)
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/graphql/schema.js';
import { asOps } from '../support/actors.js';
import { useRest } from './support.js';

const env = useRest();
let doc: any;
beforeAll(async () => {
  const r = await env.call('GET', '/api/openapi.json');
  expect(r.status).toBe(200);
  doc = r.json;
});

it('is OpenAPI 3.1 listing every route of the table with its parameters, body and errors', async () => {
  expect(doc.openapi).toBe('3.1.0');
  const cars = doc.paths['/api/cars'];
  expect(Object.keys(cars).sort()).toEqual(['get', 'post']);
  expect(cars.get.parameters.map((p: any) => p.name ?? p.$ref)).toEqual(
    expect.arrayContaining(['sort', 'limit', 'offset', 'distinct', 'embed', 'filter', 'bookableFromUtc']),
  );
  expect(cars.post.requestBody.content['application/json'].schema.$ref).toBe(
    '#/components/schemas/CreateCarInput',
  );
  expect(Object.keys(cars.post.responses)).toEqual(
    expect.arrayContaining(['201', '400', '401', '403', '409', '413', '415']),
  );
  // Errors any request may answer are described once, in the guide, not on every operation.
  expect(Object.keys(cars.get.responses)).not.toContain('429');
  expect(doc.components.responses.TooManyRequests).toBeDefined();
  expect(doc.components.responses.ServiceUnavailable.description).toContain('Retry-After');
  expect(doc.paths['/api/cars/{Id}'].delete.responses['204']).toBeDefined();
  expect(doc.components.schemas.Booking.properties.Car.$ref).toBe('#/components/schemas/Car');
  expect(doc.components.schemas.Car.required).toContain('Make');
  const operations = Object.values(doc.paths).flatMap((p: any) => Object.values(p)) as any[];
  expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
  expect(operations.length).toBeGreaterThanOrEqual(50);
});

it('passes redocly lint with no errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'carshare-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const cli = resolve(import.meta.dirname, '../../node_modules/@redocly/cli/bin/cli.js');
    const out = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 20 * 1024 * 1024,
    }).catch((e: { stdout: string; stderr: string }) => e);
    const report = JSON.parse(out.stdout) as {
      totals: { errors: number };
      problems: { message: string; ruleId: string }[];
    };
    expect(report.problems.filter((p) => (p as any).severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

it('every path and verb in it answers something other than 404', async () => {
  const token = env.tokenFor(asOps());
  const statuses: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths) as [string, Record<string, any>][]) {
    for (const method of Object.keys(ops)) {
      // Malformed ids are 400, so no id needs to exist; enum path parameters take a valid value.
      const url = path.replace(/\{(\w+)\}/g, (_, p: string) => (p === 'SubjectType' ? 'Car' : 'malformed'));
      const r = await env.call(method.toUpperCase(), url, {
        token,
        ...(method === 'get' || method === 'delete' ? {} : { body: {} }),
      });
      statuses.push(`${method.toUpperCase()} ${path} ${r.status}`);
      expect(r.status, `${method} ${url}: ${r.text}`).not.toBe(404);
      expect(r.status, `${method} ${url}: ${r.text}`).toBeLessThan(500);
    }
  }
  expect(statuses.length).toBeGreaterThanOrEqual(50);
});

it('explains itself: no public description cites an internal document (OpenAPI, DTOs, the schema, /docs)', async () => {
  const texts = {
    openapi: JSON.stringify(doc),
    dtos: (await env.call('GET', '/types/typescript')).text,
    docs: (await env.call('GET', '/docs')).text,
    schema: loadTypeDefs().join('\n'),
  };
  for (const [name, text] of Object.entries(texts))
    expect({ name, cites: text.match(/CONTRACT|§\s?\d+/g) ?? [] }).toEqual({ name, cites: [] });
});
