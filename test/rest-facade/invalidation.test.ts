// The REST cache is made stale in one place: the GraphQL server's mutation hook, told about every mutation
// whichever way it came (fragments and graphql-ws included). The facade's own handler never invalidates, so a
// REST write bumps its tags once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import type { ResponseCache } from '../../rest-facade/cache.js';
import { createFacade } from '../../rest-facade/facade.js';
import { staleAfterMutations } from '../../rest-facade/invalidation.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';
import { errorTable } from '../../src/shared/errors.js';
import { createUser } from '../factories/accounts.js';
import { asOps } from '../support/actors.js';
import { wsClient } from '../support/ws.js';
import { REST_CAR, useRest } from './support.js';

const schema = buildSchema(modules);
const CAR_SHARE = '00000000-0000-4000-8000-000000000001';

function recordingCache() {
  const bumps: (readonly string[])[] = [];
  const cache: ResponseCache = {
    get: async () => undefined,
    etagOf: async () => undefined,
    versions: async () => ({}),
    set: async () => undefined,
    invalidate: async (_carShareId, tags) => {
      bumps.push(tags);
    },
  };
  return { cache, bumps };
}

const rowTags = (operation: string) => {
  const { table } = createFacade({
    schema,
    errors: errorTable,
    execute: async () => ({ data: null }),
  });
  const route = table.routes.find((r) => r.def.operation === operation && r.def.method !== 'GET');
  if (!route) throw new Error(`no REST row for ${operation}`);
  return route.invalidates;
};

describe('staleAfterMutations', () => {
  it('bumps, in one call, the tags the REST rows of the mutations name', async () => {
    const { cache, bumps } = recordingCache();
    await staleAfterMutations(schema, cache)(['deleteCar', 'createFeedback'], CAR_SHARE);
    expect(bumps).toHaveLength(1);
    const expected = new Set([...rowTags('deleteCar'), ...rowTags('createFeedback')]);
    expect(new Set(bumps[0])).toEqual(expected);
    expect(expected).toContain('Unavailability'); // a tag only the deleteCar row adds
    expect(bumps[0]).not.toContain('Deleted');
  });

  it('a mutation no row exposes makes stale every resource its result reaches', async () => {
    const { cache, bumps } = recordingCache();
    await staleAfterMutations(schema, cache, [])(['updateCar'], CAR_SHARE);
    expect(bumps).toHaveLength(1);
    expect(bumps[0]).toContain('Car');
  });

  it('a name that is no mutation bumps nothing', async () => {
    const { cache, bumps } = recordingCache();
    await staleAfterMutations(schema, cache)(['car', 'noSuchMutation'], CAR_SHARE);
    expect(bumps).toEqual([]);
  });
});

describe('a REST write', () => {
  it('runs as the caller the edge resolved and leaves the cache to the mutation hook', async () => {
    const { cache, bumps } = recordingCache();
    const callers: unknown[] = [];
    const facade = createFacade({
      schema,
      errors: errorTable,
      cache,
      execute: async (_doc, variables, caller) => {
        callers.push(caller);
        return { data: { deleteCar: { id: variables.id } } };
      },
    });
    const caller = {
      subject: 'user:1',
      key: 'user:1::',
      carShare: { id: CAR_SHARE, baseUrl: 'https://localhost' },
    };
    const koa = new Koa();
    koa.use((ctx, next) => {
      ctx.state.caller = caller;
      return next();
    });
    koa.use(facade.middleware);
    const server = http.createServer(koa.callback()).listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    try {
      const port = (server.address() as AddressInfo).port;
      const id = '0b7e3f3e-8a1d-4c1e-9a57-6f1d2f3c4b5a';
      const r = await fetch(`http://127.0.0.1:${port}/api/cars/${id}`, { method: 'DELETE' });
      expect(r.status).toBe(204);
      expect(callers).toEqual([caller]);
      expect(bumps).toEqual([]);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });
});

describe('a mutation inside fragments, through /graphql or graphql-ws', () => {
  const env = useRest();

  it('makes the cached REST GET of what it changed fresh, for another caller too', async () => {
    const owner = await createUser(env.h);
    const token = env.tokenFor(owner.actor);
    const opsToken = env.tokenFor(asOps());
    const carId = (await env.call('POST', '/api/cars', { token, body: REST_CAR })).json.Car.Id;
    const before = await env.call('GET', `/api/cars/${carId}`, { token: opsToken });
    expect(before.json.Car.Model).toBe('Corolla');
    const write = (model: string, query: string) =>
      env.call('POST', '/graphql', { token, body: { query, variables: { id: carId, model } } });
    // A named fragment on Mutation, as some clients write every mutation.
    const spread = await write(
      'Camry',
      'mutation($id: UUID!, $model: String) { ...W } fragment W on Mutation { updateCar(id: $id, input: { model: $model }) { id model } }',
    );
    expect(spread.json.data.updateCar.model).toBe('Camry');
    const after = await env.call('GET', `/api/cars/${carId}`, { token: opsToken });
    expect(after.json.Car.Model).toBe('Camry');
    // An inline fragment inside a named one.
    await write(
      'Yaris',
      'mutation($id: UUID!, $model: String) { ...W } fragment W on Mutation { ... on Mutation { u: updateCar(id: $id, input: { model: $model }) { id } } }',
    );
    expect((await env.call('GET', `/api/cars/${carId}`, { token: opsToken })).json.Car.Model).toBe('Yaris');

    // graphql-ws runs mutations outside Apollo: the same, there.
    const client = wsClient({ origin: env.origin, cert: env.service.cert }, token);
    const query = `mutation { ...W } fragment W on Mutation { updateCar(id: "${carId}", input: { model: "Prius" }) { id } }`;
    await new Promise((done, fail) =>
      client.subscribe({ query }, { next: () => undefined, error: fail, complete: () => done(undefined) }),
    );
    await client.dispose();
    expect((await env.call('GET', `/api/cars/${carId}`, { token: opsToken })).json.Car.Model).toBe('Prius');
  });
});
