// CONTRACT §22's platform API under the conventions of §2, §3, §10 and §11: cached answers with ETags made stale by
// every platform change, bad input a 4xx naming its field, its own OpenAPI document, and the same GraphQL fields.
import { beforeAll, describe, expect, it } from 'vitest';
import { useRest } from '../rest-facade/support.js';
import { atHost } from '../support/car-shares.js';
import { at, baseUrlOf, createCarShare, DEFAULT_HOST, gqlAt, platformUser } from './support.js';

describe('the platform API’s conventions', () => {
  const env = useRest();
  const platform = () => env.tokenFor(platformUser());
  const P = (method: string, path: string, body?: unknown, token = platform()) =>
    at(env, DEFAULT_HOST, method, `/platform/api${path}`, { token, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    await createCarShare(env, platform(), 'alpha');
  });

  it('answers are cached with ETags (304 on a match) and made stale by every platform change at once', async () => {
    const token = platform();
    const list = () => at(env, DEFAULT_HOST, 'GET', '/platform/api/carshares?sort=name', { token });
    const first = await list();
    const etag = first.headers.get('etag')!;
    const again = await at(env, DEFAULT_HOST, 'GET', '/platform/api/carshares?sort=name', {
      token,
      headers: { 'If-None-Match': etag },
    });
    expect(again.status).toBe(304);
    const made = await P('POST', '/carshares', {
      BaseUrl: baseUrlOf(env, 'zulu'),
      Name: 'Zulu',
      Operator: { Username: 'ops@zulu.example' },
    });
    expect(made.status).toBe(201);
    const after = await list();
    expect(after.json.Metadata.Total).toBe(first.json.Metadata.Total + 1);
    expect(after.headers.get('etag')).not.toBe(etag);
    const audit = await at(
      env,
      DEFAULT_HOST,
      'GET',
      `/platform/api/audit?carshareid=${made.json.CarShare.Id}`,
      { token },
    );
    expect(audit.json.Metadata.Total).toBe(1);
    await P('PATCH', `/carshares/${made.json.CarShare.Id}`, { Name: 'Zulu Two' });
    const audited = await at(
      env,
      DEFAULT_HOST,
      'GET',
      `/platform/api/audit?carshareid=${made.json.CarShare.Id}`,
      {
        token,
      },
    );
    expect(audited.json.Metadata.Total).toBe(2);
    expect((await list()).json.CarShares.map((c: { Name: string }) => c.Name)).toContain('Zulu Two');
  });

  it('bad input is a 4xx naming the field, never a 5xx', async () => {
    const alpha = (await P('GET', '/carshares?host=alpha.localhost')).json.CarShares[0];
    const cases: [string, string, unknown, string][] = [
      ['PUT', `/carshares/${alpha.Id}/suspend`, { Reason: 'x'.repeat(1001) }, 'Reason'],
      ['PATCH', `/carshares/${alpha.Id}`, { Name: 'x'.repeat(101) }, 'Name'],
      ['PATCH', `/carshares/${alpha.Id}`, { Limits: { AuthPerMinute: 'many' } }, 'Limits.AuthPerMinute'],
      ['PATCH', `/carshares/${alpha.Id}`, { Limits: { AuthPerMinute: 2 ** 40 } }, 'Limits.AuthPerMinute'],
      [
        'POST',
        '/carshares',
        {
          BaseUrl: `https://${'a'.repeat(3000)}.example`,
          Name: 'Long',
          Operator: { Username: 'o@l.example' },
        },
        'BaseUrl',
      ],
      ['POST', '/carshares', { BaseUrl: 'https://n.localhost', Name: 'No operator' }, 'Operator.Username'],
      [
        'POST',
        '/carshares',
        {
          BaseUrl: 'https://n.localhost',
          Name: 'x',
          Operator: { Username: 'o@n.example', Password: 'short' },
        },
        'Name',
      ],
      [
        'POST',
        `/carshares/${alpha.Id}/operators`,
        { Username: 'weak@alpha.example', Password: 'short' },
        'Password',
      ],
      ['GET', '/carshares?status=Gone', undefined, 'Status'],
      ['GET', '/audit?fromutc=2026-01-02T00:00:00Z&toutc=2026-01-01T00:00:00Z', undefined, 'FromUtc'],
      ['GET', '/audit?carshareid=nope', undefined, 'CarShareId'],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await P(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(
        r.json.ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName),
        path,
      ).toContain(field);
    }
    expect((await P('GET', `/carshares/${alpha.Id}`)).json.CarShare.Status).toBe('Active');
  });

  it('the platform API describes itself at /platform/api/openapi.json, on the default host only', async () => {
    const doc = await at(env, DEFAULT_HOST, 'GET', '/platform/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining([
        '/platform/api/carshares',
        '/platform/api/carshares/{Id}',
        '/platform/api/audit',
      ]),
    );
    expect(JSON.stringify(doc.json.paths)).not.toContain('"/api/cars"');
    expect((await atHost(env.service.port, 'alpha.localhost', '/platform/api/openapi.json')).status).toBe(
      404,
    );
  });

  it('the same operations are GraphQL fields of the default car share’s schema', async () => {
    const token = platform();
    const made = await gqlAt(
      env,
      DEFAULT_HOST,
      token,
      `mutation { createCarShare(input: { baseUrl: "${baseUrlOf(env, 'epsilon')}", name: "Epsilon",
         operator: { username: "ops@epsilon.example" } }) { id name initialOperator { username password } } }`,
    );
    expect(made.json.errors).toBeUndefined();
    const id = made.json.data.createCarShare.id;
    expect(made.json.data.createCarShare.initialOperator.password).toMatch(/\S{16,}/);
    const read = await gqlAt(
      env,
      DEFAULT_HOST,
      token,
      `query($id: UUID!) { carShare(id: $id) { name usage { userAccounts } }
         carShares(name: "epsilon") { total } platformAudit(carShareId: $id) { total } }`,
      { id },
    );
    expect(read.json.data).toEqual({
      carShare: { name: 'Epsilon', usage: { userAccounts: 1 } },
      carShares: { total: 1 },
      platformAudit: { total: 1 },
    });
    const op = await gqlAt(
      env,
      DEFAULT_HOST,
      token,
      `mutation($id: UUID!) { addCarShareOperator(id: $id, input: { username: "two@epsilon.example" }) { roles password } }`,
      { id },
    );
    expect(op.json.data.addCarShareOperator.roles).toEqual(['user', 'ops']);
  });
});
