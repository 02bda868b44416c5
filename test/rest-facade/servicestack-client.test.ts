// @servicestack/client's JsonServiceClient, a client this project did not write, against the facade:
// get, post, patch, put and delete, and its reading of our errors (responseStatus.errorCode, fieldName).
import tls from 'node:tls';
import { JsonServiceClient } from '@servicestack/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { asOps } from '../support/actors.js';
import { PUBLIC_URL, useRest } from './support.js';

const env = useRest();
let client: JsonServiceClient;
let last: Response | undefined;
const defaultCAs = tls.getCACertificates('default');

beforeAll(async () => {
  // The client uses the global fetch, which trusts the default CA store: add the service's certificate.
  tls.setDefaultCACertificates([...defaultCAs, env.service.cert]);
  client = new JsonServiceClient(`${env.origin}/api`);
  client.bearerToken = env.tokenFor((await createUser(env.h)).actor);
  client.responseFilter = (r) => {
    last = r;
  };
});
afterAll(async () => {
  tls.setDefaultCACertificates(defaultCAs);
});

/** A plain body: the URL overloads send it as JSON with names exactly as given. */
const dto = (body: object): any => body;

const CAR = {
  Make: 'Ford',
  Model: 'Fiesta',
  Year: 2019,
  Transmission: 'Manual',
  Seats: 5,
  LicensePlate: { Jurisdiction: 'NZ', Number: 'ABC123' },
  HomeLocation: { Address: '1 Queen St', Latitude: -36.85, Longitude: 174.76 },
  HourlyRate: { Amount: '9.90', Currency: 'NZD' },
};

it('posts, gets, patches, puts and deletes a car', async () => {
  const created = await client.postToUrl<any>('/cars', dto(CAR));
  expect(last?.status).toBe(201);
  const id = created.Car.Id;
  expect(last?.headers.get('Location')).toBe(`${PUBLIC_URL}/api/cars/${id}`);

  const got = await client.get<any>(`/cars/${id}`, { embed: 'none' });
  expect(got.Car).toMatchObject({ Id: id, Make: 'Ford', Model: 'Fiesta' });
  expect(got.Car).not.toHaveProperty('Rating');

  const patched = await client.patchToUrl<any>(`/cars/${id}`, dto({ Model: 'Focus' }));
  expect(last?.status).toBe(202);
  expect(patched.Car).toMatchObject({ Model: 'Focus', Make: 'Ford' });

  const listed = await client.putToUrl<any>(`/cars/${id}/list`, dto({}));
  expect(last?.status).toBe(202);
  expect(listed.Car.Status).toBe('Listed');

  const search = await client.get<any>('/cars', { sort: '-make', filter: 'make,model' });
  expect(search.Cars).toEqual([{ Id: id, Make: 'Ford', Model: 'Focus' }]);
  expect(search.Metadata.Filter.Fields).toEqual(['Make', 'Model']);

  const deleted = await client.delete(`/cars/${id}`);
  expect(last?.status).toBe(204);
  expect(deleted).toBeNull();
});

it('reads our errors: NotFound, field errors, Forbidden', async () => {
  const fail = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as any;
    }
    throw new Error('expected a failure');
  };
  const missing = await fail(client.get('/cars/00000000-0000-4000-8000-000000000000'));
  expect(missing.responseStatus.errorCode).toBe('NotFound');

  const invalid = await fail(client.postToUrl('/cars', dto({ ...CAR, Make: '' })));
  expect(invalid.responseStatus.errorCode).toBe('NotEmpty');
  expect(invalid.responseStatus.errors[0].fieldName).toBe('Make');

  const malformed = await fail(client.get('/cars/not-an-id'));
  expect(malformed.responseStatus.errorCode).toBe('InvalidFormat');
  expect(malformed.responseStatus.errors[0].fieldName).toBe('Id');

  const forbidden = await fail(
    client.putToUrl(`/useraccounts/${(await createUser(env.h)).id}/suspend`, dto({})),
  );
  expect(forbidden.responseStatus.errorCode).toBe('Forbidden');

  const ops = new JsonServiceClient(`${env.origin}/api`);
  ops.bearerToken = env.tokenFor(asOps());
  const accounts = await ops.get<any>('/useraccounts', { limit: 1 });
  expect(accounts.Metadata.Limit).toBe(1);
});
