// CONTRACT §28 "Rate limits count actions, not requests" and WebSocket frames: each mutation root field counts
// (aliases and fragments included, sign-ups in the sign-up class), each graphql-ws operation counts, a connection
// holds at most 100 active operations, and a frame over 1 MiB closes the connection with 1009 unread.
import { createHash, randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createUser } from '../factories/accounts.js';
import { type RestEnv, useRest } from '../rest-facade/support.js';
import { asUser } from '../support/actors.js';
import type { Harness } from '../support/harness.js';
import { wsClient } from '../support/ws.js';

const count = async (h: Harness, prefix: string): Promise<number> => {
  const [row] = await h.orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>('select count(*)::int as n from user_account where username like ?', [
      `${prefix}%`,
    ]);
  return row!.n;
};

const wsUrl = (env: RestEnv) => `${env.origin.replace('https', 'wss')}/graphql`;

function connect(env: RestEnv, token: string): { client: Client; closed: () => boolean } {
  let closed = false;
  const client = wsClient({ origin: env.origin, cert: env.service.cert }, token, {
    lazy: false,
    on: { closed: () => (closed = true) },
  });
  return { client, closed: () => closed };
}

type Outcome = { data?: unknown; errors?: readonly { extensions?: { code?: string } }[] | undefined };
const run = (client: Client, query: string): Promise<Outcome> =>
  new Promise((resolve) => {
    let result: Outcome = {};
    client.subscribe(
      { query },
      {
        next: (r) => (result = r as unknown as Outcome),
        error: (errors) => resolve({ errors: errors as unknown as Outcome['errors'] }),
        complete: () => resolve(result),
      },
    );
  });

describe('graphql-ws', () => {
  const env = useRest({ env: { RATE_LIMIT_PER_MINUTE: '110' } });

  it('a frame over 1 MiB, even before connection_init is acknowledged, closes the connection with 1009', async () => {
    const socket = new WebSocket(wsUrl(env), 'graphql-transport-ws', { ca: env.service.cert });
    await new Promise((ok, fail) => socket.once('open', ok).once('error', fail));
    const closed = new Promise<number>((ok) => socket.once('close', (code) => ok(code)));
    socket.on('error', () => undefined); // the server may cut the rest of the frame off
    const payload = 'x'.repeat(1024 * 1024 - 60);
    socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${payload}` } }));
    expect(await closed).toBe(1009);
  });

  it('operations past the caller’s limit get TooManyRequests, and the connection stays open', async () => {
    const { client, closed } = connect(env, env.tokenFor(asUser(randomUUID())));
    for (let i = 0; i < 110; i++)
      expect((await run(client, '{ _ping }')).data, `operation ${i}`).toBeDefined();
    for (let i = 0; i < 3; i++) {
      const refused = await run(client, '{ _ping }');
      expect(refused.errors?.[0]?.extensions?.code).toBe('TooManyRequests');
    }
    expect(closed()).toBe(false);
    await client.dispose();
  });

  it('a connection holds 100 active subscriptions; the 101st is refused, and room made is room again', async () => {
    const { client, closed } = connect(env, env.tokenFor(asUser(randomUUID())));
    const stops: (() => void)[] = [];
    for (let i = 0; i < 100; i++)
      stops.push(
        client.subscribe(
          { query: 'subscription { events { name } }' },
          { next: () => undefined, error: () => undefined, complete: () => undefined },
        ),
      );
    const refused = await run(client, 'subscription { events { name } }');
    expect(refused.errors?.[0]?.extensions?.code).toBe('TooManyRequests');
    // A query is an operation too while it runs: refused at 100, answered once one subscription is done.
    expect((await run(client, '{ _ping }')).errors?.[0]?.extensions?.code).toBe('TooManyRequests');
    stops.pop()?.();
    expect((await run(client, '{ _ping }')).data).toEqual({ _ping: expect.anything() });
    expect(closed()).toBe(false);
    for (const stop of stops) stop();
    await client.dispose();
  });
});

describe('/graphql', () => {
  const env = useRest({
    env: {
      RATE_LIMIT_PER_MINUTE: '20',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '10',
      RATE_LIMIT_AUTH_PER_MINUTE: '3',
    },
  });
  const signUp = (alias: string, username: string) =>
    `${alias}: createUserAccount(input: { username: "${username}", password: "a long and unusual passphrase", firstName: "A", lastName: "B" }) { id }`;

  it('aliased sign-ups count in the sign-up class: past it 429, and no account is made', async () => {
    const prefix = `alias${Date.now().toString(36)}`;
    // Four sign-ups, one of them inside a fragment and one in an inline fragment of it, against a limit of 3.
    const four = `mutation { ${signUp('a0', `${prefix}0@example.com`)} ${signUp('a1', `${prefix}1@example.com`)} ...More }
      fragment More on Mutation { ${signUp('a2', `${prefix}2@example.com`)} ... on Mutation { ${signUp('a3', `${prefix}3@example.com`)} } }`;
    const refused = await env.call('POST', '/graphql', { body: { query: four } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.json.errors[0].extensions.code).toBe('TooManyRequests');
    expect(refused.json.data).toBeUndefined();
    expect(await count(env.h, prefix)).toBe(0);
    // Refused, it took nothing: three fit.
    const three = `mutation { ${[0, 1, 2].map((i) => signUp(`b${i}`, `${prefix}b${i}@example.com`)).join(' ')} }`;
    const ok = await env.call('POST', '/graphql', { body: { query: three } });
    expect(ok.status).toBe(200);
    expect(await count(env.h, prefix)).toBe(3);
    // The sign-up class is the REST sign-up's too: it is used up for this address.
    const rest = await env.call('POST', '/api/useraccounts', {
      body: {
        Username: `${prefix}r@example.com`,
        Password: 'a long and unusual passphrase',
        FirstName: 'A',
        LastName: 'B',
      },
    });
    expect(rest.status).toBe(429);
    expect(await count(env.h, prefix)).toBe(3);
  });

  it('N aliased updateProfile count N: 20 fit a limit of 20 and use it up; 21 are refused, nothing run', async () => {
    const update = (n: number, id: string, text: string) =>
      `mutation { ${Array.from({ length: n }, (_, i) => `u${i}: updateProfile(id: "${id}", input: { description: "${text}" }) { id }`).join(' ')} }`;
    const me = await createUser(env.h);
    const token = env.tokenFor(me.actor);
    const twenty = await env.call('POST', '/graphql', {
      token,
      body: { query: update(20, me.profileId, 'twenty') },
    });
    expect(twenty.status).toBe(200);
    expect(Object.keys(twenty.json.data)).toHaveLength(20);
    expect(twenty.headers.get('ratelimit-remaining')).toBe('0');
    const next = await env.call('POST', '/graphql', { token, body: { query: '{ _ping }' } });
    expect(next.status).toBe(429);
    expect(next.json.errors[0].extensions.code).toBe('TooManyRequests');

    const other = await createUser(env.h);
    const otherToken = env.tokenFor(other.actor);
    const many = await env.call('POST', '/graphql', {
      token: otherToken,
      body: { query: update(21, other.profileId, 'twenty-one') },
    });
    expect(many.status).toBe(429);
    expect(many.json.errors[0].extensions.code).toBe('TooManyRequests');
    const profile = await env.call('POST', '/graphql', {
      token: otherToken,
      body: { query: `{ profile(id: "${other.profileId}") { description } }` },
    });
    expect(profile.json.data.profile.description).not.toBe('twenty-one');
  });

  it('a persisted query sent by its hash alone counts its mutation fields too', async () => {
    const query = `mutation { ${Array.from({ length: 5 }, (_, i) => `p${i}: _ping`).join(' ')} }`;
    const persisted = {
      persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') },
    };
    const token = env.tokenFor(asUser(randomUUID()));
    const first = await env.call('POST', '/graphql', { token, body: { query, extensions: persisted } });
    expect(first.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const again = await env.call('POST', '/graphql', { token, body: { extensions: persisted } });
      expect(Object.keys(again.json.data)).toHaveLength(5);
    }
    // 4 × 5 = 20 units: the limit is used up.
    expect((await env.call('POST', '/graphql', { token, body: { query: '{ _ping }' } })).status).toBe(429);
  });
});
