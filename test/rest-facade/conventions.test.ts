// CONTRACT §2, §3 and §10 as a REST client sees them (research/rest-conventions.md §13): binding and casing,
// search parameters and Metadata, embedding, verbs and statuses, envelopes and errors.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../factories/accounts.js';
import { REST_CAR, type Reply, type RestEnv, useRest } from './support.js';

const env = useRest();
let owner: TestUser;
let token: string;
/** Another owner's token, for the cars the binding tests make (the search tests count the first owner's). */
let other: string;

function call(method: string, path: string, opts: Parameters<RestEnv['call']>[2] = {}): Promise<Reply> {
  return env.call(method, path, { token, ...opts });
}

/** One answer of every kind the facade gives, each asked for here: 200, 201, 202, and errors 400 to 415. */
async function everyKindOfAnswer(): Promise<Reply[]> {
  const replies: Reply[] = [];
  const ask = async (...args: Parameters<typeof call>) => {
    replies.push(await call(...args));
  };
  await ask('GET', '/api/cars');
  await ask('GET', `/api/cars/${ids[0]}`);
  await ask('GET', '/api/cars?embed=all&filter=make');
  await ask('GET', `/api/useraccounts/${owner.id}`);
  await ask('POST', '/api/cars', { body: REST_CAR, token: other });
  await ask('PATCH', `/api/cars/${ids[1]}`, { body: { Color: 'Blue' } });
  await ask('GET', `/api/cars/${randomUUID()}`);
  await ask('GET', '/api/nosuchresource');
  await ask('DELETE', `/api/useraccounts/${owner.id}`);
  await ask('GET', '/api/cars?sort=NoSuchField');
  await ask('GET', '/api/cars?limit=abc');
  await ask('GET', '/api/cars?filter=Make,Wings');
  await ask('GET', '/api/cars?embed=car.wheels');
  await ask('GET', '/api/cars?bookablefromutc=tomorrow&bookabletoutc=2026-08-02T10:00:00Z');
  await ask('POST', '/api/cars', { body: { ...REST_CAR, Year: 'soon' } });
  await ask('POST', '/api/cars', { body: { ...REST_CAR, Description: 'x'.repeat(1024 * 1024) } });
  await ask('POST', '/api/cars', { body: 'make=Ford', headers: { 'Content-Type': 'text/plain' } });
  await ask('POST', '/api/cars', { body: '{"Make":', headers: { 'Content-Type': 'application/json' } });
  expect(new Set(replies.map((r) => r.status))).toEqual(new Set([200, 201, 202, 400, 404, 405, 413, 415]));
  return replies;
}

const makes = ['Audi', 'BMW', 'Citroen', 'Dacia', 'Fiat'];
let ids: string[] = [];

beforeAll(async () => {
  owner = await createUser(env.h);
  token = env.tokenFor(owner.actor);
  other = env.tokenFor((await createUser(env.h)).actor);
  ids = [];
  for (const [i, make] of makes.entries()) {
    env.h.clock.advance(1000);
    const r = await call('POST', '/api/cars', { body: { ...REST_CAR, Make: make, Seats: 1 + (i % 2) } });
    ids.push(r.json.Car.Id);
  }
});

describe('binding and casing', () => {
  it.each([
    ['camelCase', { make: 'Ford', model: 'Ka', year: 2019 }],
    ['UPPERCASE', { MAKE: 'Ford', MODEL: 'Ka', YEAR: '2019' }],
    ['snake_case', { ma_ke: 'Ford', mo_del: 'Ka', ye_ar: 2019 }],
  ])('POST accepts %s property names, answered in PascalCase', async (_, names) => {
    const { Make, Model, Year, ...rest } = REST_CAR;
    const body = { ...rest, ...names, license_plate: { JURISDICTION: 'CA', number: 'X1' }, Bogus: 1 };
    const r = await call('POST', '/api/cars', { body, token: other });
    expect(r.status).toBe(201);
    expect(r.json.Car).toMatchObject({
      Make: 'Ford',
      Model: 'Ka',
      Year: 2019,
      LicensePlate: { Jurisdiction: 'CA', Number: 'X1' },
    });
    expect(r.json.Car).not.toHaveProperty('Bogus');
  });

  it('a form body binds with coercion and dotted names; a query string alone binds too', async () => {
    const form = new URLSearchParams({
      make: 'Ford',
      model: 'Ka',
      year: '2019',
      transmission: 'manual',
      seats: '4',
      autoApprove: 'true',
      'LicensePlate.Jurisdiction': 'CA',
      'license_plate.number': 'F1',
      'HomeLocation.Address': 'Somewhere 1',
      'HomeLocation.Latitude': '1.5',
      'HomeLocation.Longitude': '-2.25',
      'HourlyRate.Amount': '10.00',
      'HourlyRate.Currency': 'USD',
    });
    const r = await call('POST', '/api/cars', {
      token: other,
      body: form.toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(201);
    expect(r.json.Car).toMatchObject({
      Year: 2019,
      Seats: 4,
      AutoApprove: true,
      Transmission: 'Manual',
      HomeLocation: { Latitude: 1.5, Longitude: -2.25 },
    });
    const q = await call('POST', `/api/cars?${form.toString()}`, { token: other });
    expect(q.status).toBe(201);
    expect(q.json.Car.Make).toBe('Ford');
  });

  it('a query-string value wins over the same body property', async () => {
    const r = await call('PATCH', `/api/cars/${ids[0]}?model=FromQuery`, {
      body: { Model: 'FromBody', Color: 'Red' },
    });
    expect(r.status).toBe(202);
    expect(r.json.Car).toMatchObject({ Model: 'FromQuery', Color: 'Red', Make: 'Audi' });
  });

  it('text that cannot be coerced is 400 naming the field; only UTC dates are accepted', async () => {
    const r = await call('POST', '/api/cars', {
      body: { ...REST_CAR, Year: 'soon', Seats: '4.5', AutoApprove: 'perhaps' },
    });
    expect(r.status).toBe(400);
    expect(r.json.ResponseStatus.Errors.map((e: any) => [e.FieldName, e.ErrorCode])).toEqual([
      ['Year', 'InvalidFormat'],
      ['Seats', 'InvalidFormat'],
      ['AutoApprove', 'InvalidFormat'],
    ]);
    for (const date of ['2026-08-01T10:00:00', '2026-08-01T10:00:00+02:00', 'tomorrow']) {
      const d = await call(
        'GET',
        `/api/cars?bookablefromutc=${encodeURIComponent(date)}&bookabletoutc=2026-08-02T10:00:00Z`,
      );
      expect(d.status).toBe(400);
      expect(d.json.ResponseStatus.Errors[0]).toMatchObject({
        FieldName: 'BookableFromUtc',
        ErrorCode: 'InvalidFormat',
      });
    }
    const ok = await call(
      'GET',
      '/api/cars?bookablefromutc=2026-08-01T10:00:00%2B00:00&bookabletoutc=2026-08-02T10:00:00.000Z',
    );
    expect(ok.status).toBe(200);
  });

  it('a GET with Content-Type: application/json and an empty body is fine', async () => {
    const r = await call('GET', `/api/cars/${ids[0]}`, { headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(200);
  });
});

describe('search', () => {
  const makesOf = (r: Reply) => r.json.Cars.map((c: any) => c.Make);

  it('sorts by any-case field names, - descending, + or none ascending (a raw + is a space)', async () => {
    expect(makesOf(await call('GET', `/api/cars?sort=make&ownerid=${owner.id}`)).slice(0, 5)).toEqual(makes);
    const desc = await call('GET', `/api/cars?SORT=-MAKE&LIMIT=2&ownerid=${owner.id}`);
    expect(makesOf(desc)).toEqual(['Fiat', 'Dacia']);
    expect(desc.json.Metadata).toMatchObject({ Sort: { By: 'Make', Direction: 'Descending' }, Limit: 2 });
    for (const s of ['%2BMake', '+Make'])
      expect((await call('GET', `/api/cars?sort=${s}&ownerid=${owner.id}`)).json.Metadata.Sort).toEqual({
        By: 'Make',
        Direction: 'Ascending',
      });
    const bad = await call('GET', '/api/cars?sort=NoSuchField');
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus.Errors[0]).toMatchObject({ FieldName: 'Sort', ErrorCode: 'InvalidValue' });
  });

  it('defaults: limit 100, offset 0, sort -CreatedDateUtc, no filter, Distinct null', async () => {
    const r = await call('GET', '/api/cars');
    expect(Object.keys(r.json)).toEqual(['Cars', 'Metadata']);
    expect(r.json.Metadata).toEqual({
      Total: r.json.Cars.length,
      Limit: 100,
      Offset: 0,
      Sort: { By: 'CreatedDateUtc', Direction: 'Descending' },
      Filter: { Fields: [] },
      Distinct: null,
    });
  });

  it('filter keeps Id plus exactly the named fields, echoed in canonical casing; unknown is 400 naming Filter', async () => {
    const r = await call('GET', '/api/cars?filter=model,MAKE,license_plate');
    expect(r.json.Metadata.Filter.Fields).toEqual(['Model', 'Make', 'LicensePlate']);
    for (const c of r.json.Cars)
      expect(Object.keys(c).sort()).toEqual(['Id', 'LicensePlate', 'Make', 'Model']);
    const bad = await call('GET', '/api/cars?filter=Make,Wings');
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus.Errors[0].FieldName).toBe('Filter');
  });

  it('fields is another name for filter (AutoQuery); both at once is 400 InvalidValue naming Fields', async () => {
    const r = await call('GET', '/api/cars?Fields=model,MAKE');
    expect(r.status).toBe(200);
    expect(r.json.Metadata.Filter.Fields).toEqual(['Model', 'Make']);
    for (const c of r.json.Cars) expect(Object.keys(c).sort()).toEqual(['Id', 'Make', 'Model']);
    const unknown = await call('GET', '/api/cars?fields=Wings');
    expect(unknown.status).toBe(400);
    expect(unknown.json.ResponseStatus.Errors[0].FieldName).toBe('Fields');
    const both = await call('GET', '/api/cars?filter=Make&fields=Model');
    expect(both.status).toBe(400);
    expect(both.json.ResponseStatus).toMatchObject({
      ErrorCode: 'InvalidValue',
      Errors: [{ ErrorCode: 'InvalidValue', FieldName: 'Fields' }],
    });
  });

  it('limit and offset page through the same order; past the end is empty with the same Total', async () => {
    const all = await call('GET', `/api/cars?sort=make&ownerid=${owner.id}`);
    const page = await call('GET', `/api/cars?sort=make&limit=2&offset=2&ownerid=${owner.id}`);
    expect(page.json.Cars).toEqual(all.json.Cars.slice(2, 4));
    expect(page.json.Metadata).toMatchObject({ Total: all.json.Metadata.Total, Limit: 2, Offset: 2 });
    const past = await call('GET', `/api/cars?offset=${all.json.Metadata.Total + 5}&ownerid=${owner.id}`);
    expect(past.json.Cars).toEqual([]);
    expect(past.json.Metadata.Total).toBe(all.json.Metadata.Total);
  });

  it.each([
    ['abc', 'InvalidFormat'],
    ['0', 'OutOfRange'],
    ['1001', 'OutOfRange'],
  ])('limit=%s is 400 %s naming Limit', async (limit, code) => {
    const r = await call('GET', `/api/cars?limit=${limit}`);
    expect(r.status).toBe(400);
    expect(r.json.ResponseStatus.Errors[0]).toMatchObject({ FieldName: 'Limit', ErrorCode: code });
    expect(r.json.ResponseStatus.Errors[0].Message).toMatch(/^Limit /);
  });

  it('distinct keeps one car per value and counts the values', async () => {
    const r = await call('GET', `/api/cars?distinct=seats&ownerid=${owner.id}&sort=make`);
    expect(r.status).toBe(200);
    const seats = r.json.Cars.map((c: any) => c.Seats);
    expect(new Set(seats).size).toBe(seats.length);
    expect(r.json.Metadata.Distinct).toBe('Seats');
    expect(r.json.Metadata.Total).toBe(seats.length);
  });
});

describe('embedding', () => {
  it('a single GET embeds every descendant; embed=none none; lists none unless embed=all or *', async () => {
    const one = (await call('GET', `/api/cars/${ids[0]}`)).json.Car;
    expect(one).toHaveProperty('Rating');
    expect(one).toHaveProperty('Verifications');
    expect(one.Owner).toHaveProperty('Rating');
    const none = (await call('GET', `/api/cars/${ids[0]}?embed=none`)).json.Car;
    const { Rating, Verifications, Owner, ...plain } = one;
    expect(none).toEqual(plain);
    const list = (await call('GET', '/api/cars')).json.Cars;
    expect(list.every((c: any) => !('Rating' in c) && !('Verifications' in c))).toBe(true);
    for (const all of ['all', '*', 'ALL']) {
      const cars = (await call('GET', `/api/cars?embed=${all}`)).json.Cars;
      expect(cars.every((c: any) => c.Rating && c.Verifications && c.Owner?.Rating)).toBe(true);
    }
  });

  it('embed=car.rating names one child; profile.rating reaches a grandchild; an unknown path is 400 naming Embed', async () => {
    const cars = (await call('GET', '/api/cars?embed=car.rating')).json.Cars;
    expect(cars.every((c: any) => c.Rating && !c.Verifications && !c.Owner)).toBe(true);
    const deep = (await call('GET', `/api/cars/${ids[0]}?embed=Car.Owner,profile.rating`)).json.Car;
    expect(deep.Owner.Rating).toBeDefined();
    expect(deep.Rating).toBeUndefined();
    const shallow = (await call('GET', `/api/cars/${ids[0]}?embed=car.owner`)).json.Car;
    expect(shallow.Owner).toBeDefined();
    expect(shallow.Owner.Rating).toBeUndefined();
    for (const bad of ['car.wheels', 'spaceship.rating']) {
      const r = await call('GET', `/api/cars?embed=${bad}`);
      expect(r.status).toBe(400);
      expect(r.json.ResponseStatus.Errors[0].FieldName).toBe('Embed');
    }
  });
});

describe('routes, verbs and bodies', () => {
  it('an unknown route is 404, a known path with a wrong verb 405 with Allow', async () => {
    const r = await call('GET', '/api/nosuchresource');
    expect(r.status).toBe(404);
    expect(r.json.ResponseStatus.ErrorCode).toBe('NotFound');
    const m = await call('DELETE', `/api/useraccounts/${owner.id}`);
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toBe('GET, PATCH');
    expect(m.json.ResponseStatus.ErrorCode).toBe('MethodNotAllowed');
    const t = await call('OPTIONS', `/api/cars/${ids[0]}`);
    expect(t.status).toBe(405);
  });

  it('bodies over 1 MiB are 413, other media types 415, broken JSON 400', async () => {
    const big = await call('POST', '/api/cars', {
      body: { ...REST_CAR, Description: 'x'.repeat(1024 * 1024) },
    });
    expect(big.status).toBe(413);
    expect(big.json.ResponseStatus.ErrorCode).toBe('PayloadTooLarge');
    const text = await call('POST', '/api/cars', {
      body: 'make=Ford',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.json.ResponseStatus.ErrorCode).toBe('UnsupportedMediaType');
    const broken = await call('POST', '/api/cars', {
      body: '{"Make":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(broken.json.ResponseStatus.Errors).toEqual([]);
  });

  it('dates are ISO UTC with milliseconds and absent when empty; every answer has a Request-Id', async () => {
    const car = (await call('GET', `/api/cars/${ids[0]}`)).json.Car;
    const dates = JSON.stringify(car).match(/"\w+Utc":"[^"]*"/g) ?? [];
    expect(dates.length).toBeGreaterThan(2);
    for (const d of dates) expect(d).toMatch(/:"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
    expect(car).not.toHaveProperty('LockStateChangedDateUtc');
    for (const r of await everyKindOfAnswer()) expect(r.headers.get('request-id')).toBeTruthy();
  });

  it('success bodies never hold ResponseStatus; error bodies hold only it, with Errors always present', async () => {
    let errors = 0;
    for (const r of await everyKindOfAnswer()) {
      if (!r.json) continue;
      if (r.status < 400) expect(r.json).not.toHaveProperty('ResponseStatus');
      else {
        errors++;
        expect(Object.keys(r.json)).toEqual(['ResponseStatus']);
        expect(Array.isArray(r.json.ResponseStatus.Errors)).toBe(true);
        expect(JSON.stringify(r.json)).not.toMatch(/StackTrace|at .*\.ts:\d+/);
      }
    }
    expect(errors).toBeGreaterThan(10);
  });
});
