// `GET /api/cars?near=<lat>,<lon>&radiuskm=<r>` over HTTPS (CONTRACT §17): the distances against the test's own
// haversine, the order and Metadata, the combination with the other search parameters, and every error.
import { beforeEach, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../factories/accounts.js';
import { carWithStatus } from '../factories/cars.js';
import { AROUND_BERLIN, type At, BERLIN, greatCircleKm, ROUNDING_KM } from '../factories/places.js';
import { asOps } from '../support/actors.js';
import { useRest } from './support.js';

const env = useRest({ resetEach: true });

let owner: TestUser;
let token: string;
const cars = new Map<string, { id: string; at: At }>();
beforeEach(async () => {
  owner = await createUser(env.h);
  token = env.tokenFor(asOps());
  cars.clear();
  for (const [name, at] of Object.entries(AROUND_BERLIN)) {
    const make = name === 'tempelhof' ? 'Honda' : 'Toyota';
    const car = await carWithStatus(env.h, owner.actor, 'Listed', {
      make,
      homeLocation: { address: name, ...at },
    });
    cars.set(name, { id: car.id, at });
  }
});

const get = (query: string) => env.call('GET', `/api/cars?${query}`, { token });
const idOf = (name: string) => cars.get(name)!.id;
const CENTER = `${BERLIN.latitude},${BERLIN.longitude}`;

describe('GET /api/cars?near=', () => {
  it('keeps the cars within RadiusKm with their DistanceKm, nearest first, and says so in Metadata', async () => {
    const r = await get(`near=${CENTER}&radiuskm=30`);
    expect(r.status).toBe(200);
    expect(r.json.Cars.map((c: any) => c.Id)).toEqual(
      ['alexanderplatz', 'tempelhof', 'spandau', 'potsdam'].map(idOf),
    );
    for (const c of r.json.Cars) {
      const at = [...cars.values()].find((x) => x.id === c.Id)!.at;
      expect(Math.abs(c.DistanceKm - greatCircleKm(BERLIN, at))).toBeLessThanOrEqual(ROUNDING_KM);
    }
    expect(r.json.Metadata).toMatchObject({ Total: 4, Sort: { By: 'DistanceKm', Direction: 'Ascending' } });
    // The default radius is 10 km; without near there is no distance.
    expect((await get(`NEAR=${CENTER}`)).json.Metadata.Total).toBe(2);
    const plain = await get('sort=make');
    expect(plain.json.Cars).toHaveLength(5);
    expect(plain.json.Cars.every((c: any) => !('DistanceKm' in c))).toBe(true);
  });

  it('combines with filters, the bookable period, sort, paging, filter, distinct and embed', async () => {
    expect((await get(`near=${CENTER}&radiuskm=30&make=honda`)).json.Cars.map((c: any) => c.Id)).toEqual([
      idOf('tempelhof'),
    ]);
    const alex = idOf('alexanderplatz');
    const blocked = await env.call('POST', `/api/cars/${alex}/unavailabilities`, {
      token,
      body: { StartDateUtc: '2026-07-02T10:00:00Z', EndDateUtc: '2026-07-02T12:00:00Z' },
    });
    expect(blocked.status).toBe(201);
    const free = await get(
      `near=${CENTER}&radiuskm=30&bookablefromutc=2026-07-02T11:00:00Z&bookabletoutc=2026-07-02T13:00:00Z`,
    );
    expect(free.json.Cars.map((c: any) => c.Id)).toEqual(['tempelhof', 'spandau', 'potsdam'].map(idOf));
    const farthest = await get(`near=${CENTER}&radiuskm=30&sort=-distancekm&limit=2&offset=1`);
    expect(farthest.json.Cars.map((c: any) => c.Id)).toEqual(['spandau', 'tempelhof'].map(idOf));
    expect(farthest.json.Metadata).toMatchObject({
      Total: 4,
      Limit: 2,
      Offset: 1,
      Sort: { By: 'DistanceKm', Direction: 'Descending' },
    });
    const byMake = await get(`near=${CENTER}&radiuskm=30&sort=make&filter=distancekm,make`);
    expect(byMake.json.Cars.map((c: any) => Object.keys(c))).toEqual(
      Array(4).fill(['Id', 'Make', 'DistanceKm']),
    );
    expect(byMake.json.Cars[0].Make).toBe('Honda');
    const makes = await get(`near=${CENTER}&radiuskm=30&distinct=make&embed=car.rating`);
    expect(makes.json.Metadata).toMatchObject({ Total: 2, Distinct: 'Make' });
    expect(makes.json.Cars.map((c: any) => c.Id)).toEqual([alex, idOf('tempelhof')]);
    expect(makes.json.Cars[0].Rating).toMatchObject({ Count: 0 });
  });

  it('speaks every format; the CSV carries the distance column', async () => {
    const r = await get(`near=${CENTER}&filter=DistanceKm&format=csv`);
    expect(r.status).toBe(200);
    const [header, first] = r.text.split('\r\n');
    expect(header).toBe('Id,DistanceKm');
    expect(first).toMatch(new RegExp(`^${idOf('alexanderplatz')},0\\.\\d{1,3}$`));
  });

  it.each([
    ['abc', 'InvalidFormat', 'Near'],
    ['52.5', 'InvalidFormat', 'Near'],
    ['52.5,13.4,7', 'InvalidFormat', 'Near'],
    ['52.5;13.4', 'InvalidFormat', 'Near'],
    ['52.5,east', 'InvalidFormat', 'Near'],
    ['90.5,13.4', 'OutOfRange', 'Near'],
    ['-91,13.4', 'OutOfRange', 'Near'],
    ['52.5,180.01', 'OutOfRange', 'Near'],
    ['52.5,-200', 'OutOfRange', 'Near'],
    ['1e400,0', 'OutOfRange', 'Near'],
    [`${CENTER}&radiuskm=0`, 'OutOfRange', 'RadiusKm'],
    [`${CENTER}&radiuskm=-1`, 'OutOfRange', 'RadiusKm'],
    [`${CENTER}&radiuskm=500.5`, 'OutOfRange', 'RadiusKm'],
    [`${CENTER}&radiuskm=1e999`, 'OutOfRange', 'RadiusKm'],
    [`${CENTER}&radiuskm=ten`, 'InvalidFormat', 'RadiusKm'],
  ])('near=%s is 400 %s naming %s', async (value, code, field) => {
    const r = await get(`near=${value}`);
    expect(r.status).toBe(400);
    expect(r.json.ResponseStatus).toMatchObject({
      ErrorCode: code,
      Errors: [{ ErrorCode: code, FieldName: field }],
    });
    expect(r.text).not.toMatch(/Variable "\$|got invalid value|cannot represent/);
  });

  it('sort=distancekm and radiuskm need near (400 naming Sort or RadiusKm)', async () => {
    const sort = await get('sort=distancekm');
    expect(sort.status).toBe(400);
    expect(sort.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidValue',
      FieldName: 'Sort',
    });
    const radius = await get('radiuskm=5');
    expect(radius.status).toBe(400);
    expect(radius.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidValue',
      FieldName: 'RadiusKm',
    });
  });

  it('is documented as two query parameters', async () => {
    const doc = (await env.call('GET', '/api/openapi.json')).json;
    const params = doc.paths['/api/cars'].get.parameters.map((p: any) => p.name);
    expect(params).toEqual(expect.arrayContaining(['near', 'radiusKm']));
    expect(doc.paths['/api/cars'].get.requestBody).toBeUndefined();
  });
});
