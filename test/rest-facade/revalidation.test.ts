// Revalidations (a GET with If-None-Match whose answer the cache holds) are answered 304 in front of Koa: the same
// answer, counts and token check as through the chain. A request carrying `Origin` always goes through the chain
// (CORS is the chain's), which makes the two paths comparable here.
import { expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { parseMetrics } from '../support/metrics.js';
import { useRest } from './support.js';

const env = useRest({ env: { RATE_LIMIT_PER_MINUTE: '5' } });

/** Every header but those that differ by nature between two answers (their date, request id, counts). */
const comparable = (headers: Headers) =>
  [...headers].filter(([k]) => !['date', 'request-id', 'ratelimit-remaining', 'ratelimit-reset'].includes(k));

const served304 = async () => {
  const text = await (await env.call('GET', '/metrics')).text;
  const sample = parseMetrics(text).find(
    (s) =>
      s.name === 'http_requests_total' &&
      s.labels.route === '/api/useraccounts/{Id}' &&
      s.labels.method === 'GET' &&
      s.labels.status === '304',
  );
  return sample?.value ?? 0;
};

it('answers as the chain does, counts in the same rate window and metrics, checks the token once', async () => {
  const me = await createUser(env.h);
  const token = env.tokenFor(me.actor);
  const path = `/api/useraccounts/${me.id}`;
  const first = await env.call('GET', path, { token });
  expect(first.status).toBe(200);
  expect(first.headers.get('ratelimit-remaining')).toBe('4');
  const etag = first.headers.get('etag')!;
  const before304 = await served304();

  const checks = env.tokenChecks();
  const ahead = await env.call('GET', path, {
    token,
    headers: { 'If-None-Match': etag, 'Request-Id': 'rev-1' },
  });
  expect(env.tokenChecks() - checks).toBe(1);
  const chain = await env.call('GET', path, {
    token,
    headers: { 'If-None-Match': etag, Origin: 'https://elsewhere.example' },
  });
  for (const r of [ahead, chain]) {
    expect(r.status).toBe(304);
    expect(r.text).toBe('');
  }
  expect(comparable(ahead.headers)).toEqual(comparable(chain.headers));
  expect(comparable(ahead.headers).map(([k]) => k)).toEqual(
    expect.arrayContaining(['etag', 'cache-control', 'vary', 'ratelimit-limit']),
  );
  expect(ahead.headers.get('etag')).toBe(etag);
  expect(ahead.headers.get('request-id')).toBe('rev-1');
  expect(chain.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
  // One window for both paths: 5 allowed, the first GET took one.
  expect([ahead, chain].map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['3', '2']);
  expect((await served304()) - before304).toBe(2);

  // Another tag: the chain answers 200, still with one token check.
  const again = env.tokenChecks();
  const changed = await env.call('GET', path, { token, headers: { 'If-None-Match': '"other"' } });
  expect(changed.status).toBe(200);
  expect(changed.text).toBe(first.text);
  expect(changed.headers.get('ratelimit-remaining')).toBe('1');
  expect(env.tokenChecks() - again).toBe(1);

  // The last request of the window, then the refusal: the chain's 429 with its body.
  expect((await env.call('GET', path, { token, headers: { 'If-None-Match': etag } })).status).toBe(304);
  const refused = await env.call('GET', path, { token, headers: { 'If-None-Match': etag } });
  expect(refused.status).toBe(429);
  expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  expect(refused.json.ResponseStatus).toMatchObject({ ErrorCode: 'TooManyRequests' });
});

it('checks a token once per request, after the barrier through the chain and alongside it in front', async () => {
  const me = await createUser(env.h);
  const token = env.tokenFor(me.actor);
  const path = `/api/useraccounts/${me.id}`;
  const before = env.tokenChecksHeard().length;
  const first = await env.call('GET', path, { token });
  // In front of Koa the check runs while the car shares settle (it shares their barrier), so it is not told heard.
  const ahead = await env.call('GET', path, {
    token,
    headers: { 'If-None-Match': first.headers.get('etag')! },
  });
  expect([first.status, ahead.status]).toEqual([200, 304]);
  expect(env.tokenChecksHeard().slice(before)).toEqual([true, false]);
});

it('leaves a refused token to the chain: 401 with its challenge', async () => {
  const me = await createUser(env.h);
  const token = env.tokenFor(me.actor);
  const etag = (await env.call('GET', `/api/useraccounts/${me.id}`, { token })).headers.get('etag')!;
  const r = await env.call('GET', `/api/useraccounts/${me.id}`, {
    token: 'not-a-token',
    headers: { 'If-None-Match': etag },
  });
  expect(r.status).toBe(401);
  expect(r.headers.get('www-authenticate')).toContain('Bearer');
});
