// ServiceStack's predefined routes (CONTRACT §16), generated from the route table through the OpenAPI document:
// for every GET route, `/api/{DtoName}` and `/json/reply/{DtoName}` with the path parameters as properties answer
// exactly what the pretty route answers (status, body, ETag, caching), and a mutation through them is the same
// operation (status, Location, envelope).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookingIn, world } from '../factories/bookings.js';
import { verificationId } from '../factories/verifications.js';
import { asOps } from '../support/actors.js';
import { PUBLIC_URL, useRest } from './support.js';

const env = useRest({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
let ops: string;
let owner: string;
let gets: { path: string; dto: string; params: string[] }[];
/** Real ids for the path parameters of each resource's routes, so most GETs answer 200. */
const ids = new Map<string, string>();

beforeAll(async () => {
  ops = env.tokenFor(asOps());
  const w = await world(env.h);
  owner = env.tokenFor(w.owner.actor);
  const booking = await bookingIn(env.h, w, 'Approved');
  const sub = await env.call('POST', '/api/webhooks/subscriptions', {
    token: ops,
    body: { Name: 'Hooks', Events: 'carbooking_approve', Config: { Url: 'https://127.0.0.1:9/hook' } },
  });
  ids.set('cars', w.carId);
  ids.set('bookings', booking.id);
  ids.set('useraccounts', w.owner.id);
  ids.set('profiles', w.owner.profileId);
  ids.set('verifications', await verificationId(env.h, w.carId, 'LicensePlate'));
  expect(sub.status, sub.text).toBe(201);
  ids.set('subscriptions', sub.json.WebhookSubscriptions[0].Id);
  const doc = (await env.call('GET', '/api/openapi.json')).json;
  gets = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    ops.get
      ? [
          {
            path,
            dto: ops.get.operationId as string,
            params: (ops.get.parameters as any[]).filter((p) => p.in === 'path').map((p) => p.name as string),
          },
        ]
      : [],
  );
});

/** A value for a path parameter: the seeded id of the resource the segment before it names. */
function valueFor(path: string, param: string): string {
  if (param === 'SubjectType') return 'Car';
  if (param === 'SubjectId') return ids.get('cars')!;
  const segments = path.split('/');
  const resource = segments[segments.indexOf(`{${param}}`) - 1]!;
  return ids.get(resource) ?? (resource === 'deliveries' ? 'f'.repeat(32) : randomUUID());
}

it("names every operation by one rule, its OpenAPI operationId: CONTRACT §16's examples", async () => {
  const doc = (await env.call('GET', '/api/openapi.json')).json;
  const named = Object.fromEntries(
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op.operationId]),
    ),
  );
  expect(named).toMatchObject({
    'GET /api/cars': 'QueryCars',
    'GET /api/cars/{Id}': 'GetCar',
    'POST /api/cars': 'CreateCar',
    'PATCH /api/cars/{Id}': 'UpdateCar',
    'DELETE /api/cars/{Id}': 'DeleteCar',
    'PUT /api/cars/{Id}/list': 'ListCar',
    'PUT /api/cars/{Id}/lock': 'LockCar',
    'POST /api/cars/{Id}/bookings': 'RequestBooking',
    'PUT /api/bookings/{Id}/approve': 'ApproveBooking',
    'GET /api/bookings': 'QueryBookings',
    'POST /api/webhooks/subscriptions': 'CreateWebhookSubscriptions',
  });
  const names = Object.values(named) as string[];
  expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
  for (const n of names) expect(n).toMatch(/^(Query|Get|[A-Z][a-z]+)[A-Z]\w+$/);
});

describe('every GET route', () => {
  it('answers the same through /api/{DtoName} and /json/reply/{DtoName}', async () => {
    let ok = 0;
    for (const { path, dto, params } of gets) {
      const values = new Map(params.map((p) => [p, valueFor(path, p)]));
      const pretty = path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(values.get(p)!));
      const query = new URLSearchParams([...values]).toString();
      const a = await env.call('GET', pretty, { token: ops });
      for (const address of [`/api/${dto}`, `/json/reply/${dto}`]) {
        const b = await env.call('GET', `${address}${query ? `?${query}` : ''}`, { token: ops });
        const what = `${address} vs ${pretty}`;
        expect(b.status, what).toBe(a.status);
        expect(b.text, what).toBe(a.text);
        expect(b.headers.get('etag'), what).toBe(a.headers.get('etag'));
        expect(b.headers.get('cache-control'), what).toBe(a.headers.get('cache-control'));
        expect(b.headers.get('content-type'), what).toBe(a.headers.get('content-type'));
        if (a.status === 200) {
          const again = await env.call('GET', `${address}?${query}`, {
            token: ops,
            headers: { 'If-None-Match': a.headers.get('etag')! },
          });
          expect(again.status, what).toBe(304);
        }
      }
      if (a.status === 200) ok += 1;
    }
    expect(gets.length).toBeGreaterThanOrEqual(20);
    // The seeded ids make most of them real reads, not two equal 404s.
    expect(ok).toBeGreaterThanOrEqual(gets.length - 4);
  });

  it('keeps formats, errors and missing path properties in ResponseStatus terms', async () => {
    const carId = ids.get('cars')!;
    const xml = await env.call('GET', `/api/GetCar?Id=${carId}&format=xml`, { token: ops });
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(xml.text).toBe((await env.call('GET', `/api/cars/${carId}?format=xml`, { token: ops })).text);
    const missing = await env.call('GET', '/api/GetCar', { token: ops });
    expect(missing.status).toBe(400);
    expect(missing.json.ResponseStatus).toMatchObject({
      ErrorCode: 'NotEmpty',
      Errors: [{ ErrorCode: 'NotEmpty', FieldName: 'Id' }],
    });
    const malformed = await env.call('GET', '/json/reply/GetCar?Id=nope', { token: ops });
    expect(malformed.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidFormat',
      FieldName: 'Id',
    });
    const unknown = await env.call('GET', '/api/GetSpaceship', { token: ops });
    expect(unknown.status).toBe(404);
    expect(unknown.json.ResponseStatus.ErrorCode).toBe('NotFound');
    const wrongVerb = await env.call('POST', '/json/reply/GetCar', { token: ops, body: { Id: carId } });
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.headers.get('allow')).toBe('GET');
    const anonymous = await env.call('GET', `/api/getcar?id=${carId}`);
    expect(anonymous.status).toBe(401);
  });
});

describe('mutations', () => {
  it('create (201 with the pretty Location), update, action and delete (204) through predefined routes', async () => {
    const created = await env.call('POST', '/api/CreateCar', {
      token: owner,
      body: {
        Make: 'Ford',
        Model: 'Fiesta',
        Year: 2019,
        Transmission: 'Manual',
        Seats: 5,
        LicensePlate: { Jurisdiction: 'NZ', Number: 'PRE123' },
        HomeLocation: { Address: '1 Queen St', Latitude: -36.85, Longitude: 174.76 },
        HourlyRate: { Amount: '9.90', Currency: 'NZD' },
      },
    });
    expect(created.status).toBe(201);
    const id = created.json.Car.Id;
    expect(created.headers.get('location')).toBe(`${PUBLIC_URL}/api/cars/${id}`);
    const updated = await env.call('PATCH', '/json/reply/UpdateCar', {
      token: owner,
      body: { Id: id, Model: 'Focus' },
    });
    expect(updated.status).toBe(202);
    expect(updated.json.Car).toMatchObject({ Id: id, Model: 'Focus' });
    // A form body carries the path parameter like any other property.
    const listed = await env.call('PUT', '/api/ListCar', {
      token: owner,
      body: `Id=${id}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(listed.status).toBe(202);
    expect(listed.json.Car.Status).toBe('Listed');
    const readOnly = await env.call('PATCH', '/api/UpdateCar', {
      token: owner,
      body: { Id: id, Status: 'Draft' },
    });
    expect(readOnly.status).toBe(400);
    expect(readOnly.json.ResponseStatus.Errors[0].FieldName).toBe('Status');
    const deleted = await env.call('DELETE', `/api/DeleteCar?Id=${id}`, { token: owner });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await env.call('GET', `/api/cars/${id}`, { token: owner })).status).toBe(404);
  });
});
