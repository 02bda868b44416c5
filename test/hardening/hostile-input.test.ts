// CONTRACT §13 through real HTTP: NUL bytes, impossible dates and years, numbers out of range, oversized
// headers and bodies — each a clear 400/413/431 with a ResponseStatus, never a 5xx, nothing stored.
import { connect } from 'node:tls';
import { Agent, fetch } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { world } from '../factories/bookings.js';
import { carInput } from '../factories/cars.js';
import { useRest } from '../rest-facade/support.js';
import { asOps } from '../support/actors.js';

const env = useRest();
let ops: string;
beforeAll(async () => {
  ops = env.tokenFor(asOps());
});

const pascalCar = () =>
  Object.fromEntries(Object.entries(carInput()).map(([k, v]) => [k.charAt(0).toUpperCase() + k.slice(1), v]));
/** REST messages never speak GraphQL (CONTRACT §13). */
const GRAPHQL_WORDS = /Variable "\$|got invalid value|cannot represent/;

describe('NUL bytes', () => {
  it('REST: a NUL in a body field, a form field or a search filter is 400 InvalidValue naming the field', async () => {
    const user = await createUser(env.h);
    const token = env.tokenFor(user.actor);
    const body = await env.call('POST', '/api/cars', {
      token,
      body: { ...pascalCar(), Make: 'To\u0000yota' },
    });
    expect(body.status).toBe(400);
    expect(body.json.ResponseStatus).toMatchObject({
      ErrorCode: 'InvalidValue',
      Errors: [{ FieldName: 'Make' }],
    });
    const search = await env.call('GET', '/api/cars?make=a%00b', { token });
    expect(search.status).toBe(400);
    expect(search.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidValue',
      FieldName: 'Make',
    });
    const nested = await env.call('POST', '/api/cars', {
      token,
      body: { ...pascalCar(), LicensePlate: { Jurisdiction: 'CA', Number: '7\u0000' } },
    });
    expect(nested.json.ResponseStatus.Errors[0].FieldName).toBe('LicensePlate.Number');
    const form = await env.call('PATCH', `/api/profiles/${user.id}`, {
      token,
      body: 'Description=x%00y',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
    expect(form.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidValue',
      FieldName: 'Description',
    });
    const path = await env.call('GET', '/api/cars/a%00b', { token });
    expect(path.json.ResponseStatus.Errors[0]).toMatchObject({ ErrorCode: 'InvalidValue', FieldName: 'Id' });
    // Nothing was stored.
    const mine = await env.call('GET', `/api/cars?ownerid=${user.id}`, { token });
    expect(mine.json.Metadata.Total).toBe(0);
  });

  it('GraphQL: a NUL in a variable or a literal is 400 InvalidValue naming the argument', async () => {
    const v = await env.call('POST', '/graphql', {
      token: ops,
      body: { query: 'query($m: String) { cars(make: $m) { total } }', variables: { m: 'a\u0000' } },
    });
    expect(v.status).toBe(400);
    expect(v.json.errors[0].extensions).toMatchObject({ code: 'InvalidValue', field: 'm' });
    const lit = await env.call('POST', '/graphql', {
      token: ops,
      body: { query: '{ cars(make: "a\\u0000b") { total } }' },
    });
    expect(lit.status).toBe(400);
    expect(lit.json.errors[0].extensions).toMatchObject({ code: 'InvalidValue', field: 'make' });
  });
});

describe('dates', () => {
  it('a day not on the calendar is InvalidFormat; years outside 0001-9999 are OutOfRange', async () => {
    const w = await world(env.h);
    const token = env.tokenFor(w.borrower.actor);
    const book = (start: string, end: string) =>
      env.call('POST', `/api/cars/${w.carId}/bookings`, {
        token,
        body: { StartDateUtc: start, EndDateUtc: end },
      });
    const feb30 = await book('2027-02-30T10:00:00Z', '2027-03-02T12:00:00Z');
    expect(feb30.status).toBe(400);
    expect(feb30.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidFormat',
      FieldName: 'StartDateUtc',
    });
    for (const bad of ['2027-03-01T25:00:00Z', '2027-03-01T10:60:00Z']) {
      const r = await book(bad, '2027-03-02T12:00:00Z');
      expect(r.json.ResponseStatus.ErrorCode, bad).toBe('InvalidFormat');
    }
    for (const [path, field] of [
      ['/api/bookings?fromutc=0000-01-01T00:00:00.000Z', 'FromUtc'],
      ['/api/reports/summary?toutc=%2B010000-01-01T00:00:00Z', 'ToUtc'],
      [
        '/api/cars?bookablefromutc=0000-01-01T00:00:00Z&bookabletoutc=2027-01-01T00:00:00Z',
        'BookableFromUtc',
      ],
    ] as const) {
      const r = await env.call('GET', path, { token: ops });
      expect(r.status, path).toBe(400);
      expect(r.json.ResponseStatus.Errors[0], path).toMatchObject({
        ErrorCode: 'OutOfRange',
        FieldName: field,
      });
    }
    const unavailable = await env.call('POST', `/api/cars/${w.carId}/unavailabilities`, {
      token: env.tokenFor(w.owner.actor),
      body: { StartDateUtc: '0000-01-01T00:00:00Z', EndDateUtc: '2027-01-01T00:00:00Z', Reason: 'Other' },
    });
    expect(unavailable.status).toBe(400);
    expect(unavailable.json.ResponseStatus.ErrorCode).toBe('OutOfRange');
  });

  it('GraphQL refuses the same dates with the same codes', async () => {
    const r = await env.call('POST', '/graphql', {
      token: ops,
      body: {
        query: 'query($f: DateTime) { bookings(fromUtc: $f) { total } }',
        variables: { f: '0000-01-01T00:00:00Z' },
      },
    });
    expect(r.json.errors[0].extensions.code).toBe('OutOfRange');
    const s = await env.call('POST', '/graphql', {
      token: ops,
      body: { query: '{ summary(fromUtc: "2027-02-30T00:00:00Z") { __typename } }' },
    });
    expect(s.json.errors[0].extensions.code).toBe('InvalidFormat');
  });
});

describe('numbers', () => {
  it('integers beyond 32 bits are OutOfRange naming the field in REST words', async () => {
    const token = env.tokenFor((await createUser(env.h)).actor);
    const seats = await env.call('POST', '/api/cars', {
      token,
      body: `{"Seats":1e308,"Make":"Toyota"}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(seats.status).toBe(400);
    expect(seats.json.ResponseStatus.Errors).toContainEqual(
      expect.objectContaining({ ErrorCode: 'OutOfRange', FieldName: 'Seats' }),
    );
    const offset = await env.call('GET', '/api/cars?offset=1000000000000', { token });
    expect(offset.status).toBe(400);
    expect(offset.json.ResponseStatus).toMatchObject({
      ErrorCode: 'OutOfRange',
      Errors: [{ FieldName: 'Offset' }],
    });
    for (const r of [seats, offset]) expect(r.text).not.toMatch(GRAPHQL_WORDS);
    // A field out of its own range is named in REST terms in the message too.
    const nine = await env.call('POST', '/api/cars', { token, body: { ...pascalCar(), Seats: 10 } });
    expect(nine.json.ResponseStatus).toMatchObject({
      ErrorCode: 'OutOfRange',
      Errors: [{ FieldName: 'Seats' }],
    });
    expect(nine.json.ResponseStatus.Message).toMatch(/^Seats /);
    expect(nine.json.ResponseStatus.Errors[0].Message).toMatch(/^Seats /);
    const gql = await env.call('POST', '/graphql', {
      token,
      body: { query: 'query($n: Int) { cars(offset: $n) { total } }', variables: { n: 1e12 } },
    });
    expect(gql.json.errors[0].extensions).toMatchObject({ code: 'OutOfRange', field: 'n' });
  });
});

describe('webhook targets', () => {
  it('refuses a trailing-dot loopback name and a name that does not resolve, at subscription', async () => {
    for (const url of ['https://localhost./h', 'https://127.0.0.1./h', 'https://no-such-host.invalid/h']) {
      const r = await env.call('POST', '/api/webhooks/subscriptions', {
        token: ops,
        body: { Name: 'Hostile', Events: ['profile_update'], Config: { Url: url } },
      });
      expect(r.status, url).toBe(400);
      expect(r.json.ResponseStatus.Errors[0], url).toMatchObject({
        ErrorCode: 'InvalidValue',
        FieldName: 'Config.Url',
      });
    }
  });
});

describe('oversized requests', () => {
  it('headers over 16 KiB (a long URL) are 431 RequestHeaderFieldsTooLarge with a Request-Id', async () => {
    const r = await env.call('GET', `/api/cars?make=${'a'.repeat(90_000)}`, { token: ops });
    expect(r.status).toBe(431);
    expect(r.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.ResponseStatus.ErrorCode).toBe('RequestHeaderFieldsTooLarge');
  });

  it('a body over 1 MiB is 413 on REST and GraphQL', async () => {
    const big = JSON.stringify({ Description: 'x'.repeat(1024 * 1024 + 10) });
    const rest = await env.call('POST', '/api/cars', {
      token: ops,
      body: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(rest.status).toBe(413);
    expect(rest.json.ResponseStatus.ErrorCode).toBe('PayloadTooLarge');
    const gql = await env.call('POST', '/graphql', {
      token: ops,
      body: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(gql.status).toBe(413);
    // Sent in chunks, with no Content-Length to go by: the same 413, not a reset connection.
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const chunked = await fetch(`${env.origin}/api/cars`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ops}` },
      duplex: 'half',
      dispatcher: new Agent({ connect: { ca: env.service.cert } }),
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"Description":"'));
          for (let i = 0; i < 40; i += 1) c.enqueue(chunk);
          c.close();
        },
      }),
    });
    expect(chunked.status).toBe(413);
    expect(
      ((await chunked.json()) as { ResponseStatus: { ErrorCode: string } }).ResponseStatus.ErrorCode,
    ).toBe('PayloadTooLarge');
  });

  it('a malformed request line is a 400 with a ResponseStatus, not a bare reset', async () => {
    const port = env.service.port;
    const text = await new Promise<string>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: env.service.cert }, () =>
        s.write('GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'),
      );
      let out = '';
      s.on('data', (d) => {
        out += d.toString();
      });
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1.1 400/);
    expect(text).toContain('"ResponseStatus"');
  });
});
