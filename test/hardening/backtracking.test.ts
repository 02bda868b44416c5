// CONTRACT §13, §28 through real HTTPS: input built to make a regular expression backtrack (a 64 KiB number, an
// e-mail address of 32k dotted labels, a host of 32k dots and a letter) is refused at once, whoever sends it. Each once held
// the service for seconds; the bound below is generous for a loaded machine and far under those seconds.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { REST_CAR, useRest } from '../rest-facade/support.js';

const env = useRest();
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const BOUND_MS = 500;

/**
 * The reply, and how long the service took to give it. The same request with a short body goes first: the first
 * request of a route pays for compiling its document, which is not what is measured.
 */
async function timed(
  method: string,
  path: string,
  opts: Parameters<typeof env.call>[2] = {},
  warmUp: Parameters<typeof env.call>[2] = {},
) {
  await env.call(method, path, { ...opts, ...warmUp });
  const started = performance.now();
  const reply = await env.call(method, path, opts);
  return { reply, ms: performance.now() - started };
}

/** 64 KiB of digits that are no number: a backtracking pattern tries each way to split them. */
const digits = (n: number) => `${'1'.repeat(n)}x`;

describe('input built to backtrack is refused at once', () => {
  it('a 64 KiB latitude in a form body of POST /api/cars (read before the caller is known)', async () => {
    const body = new URLSearchParams({
      Make: 'Toyota',
      'HomeLocation.Latitude': digits(64 * 1024),
      'HomeLocation.Longitude': '0',
    }).toString();
    const { reply, ms } = await timed('POST', '/api/cars', { body, headers: FORM }, { body: 'Make=x' });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(ms).toBeLessThan(BOUND_MS);
    // A signed-in caller is told which field it is.
    const user = await createUser(env.h);
    const named = await env.call('POST', '/api/cars', {
      token: env.tokenFor(user.actor),
      body: { ...REST_CAR, HomeLocation: { ...REST_CAR.HomeLocation, Latitude: digits(64 * 1024) } },
    });
    expect(named.status).toBe(400);
    expect(named.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidFormat',
      FieldName: 'HomeLocation.Latitude',
    });
  });

  it('a latitude as long as a request line may be, in `near` of GET /api/cars', async () => {
    // Request headers stop at 16 KiB (CONTRACT §13), so this is the longest `near` a client can send.
    const { reply, ms } = await timed('GET', `/api/cars?near=${digits(15 * 1024)},0`);
    // (The warm-up of `timed` is the same request: the route compiles nothing for a refused parameter.)
    expect(reply.status).toBe(400);
    expect(reply.json.ResponseStatus.Errors[0]).toMatchObject({
      ErrorCode: 'InvalidFormat',
      FieldName: 'Near',
    });
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('a sign-up whose e-mail address is `a@` and 32k `a.` labels and `@`', async () => {
    const { reply, ms } = await timed(
      'POST',
      '/api/useraccounts',
      {
        body: {
          Username: `a@${'a.'.repeat(32 * 1024)}@`,
          Password: 'a long and unusual passphrase',
          FirstName: 'Eve',
          LastName: 'Long',
        },
      },
      { body: { Username: 'a@' } },
    );
    expect(reply.status).toBe(400);
    expect(reply.json.ResponseStatus.Errors).toContainEqual(
      expect.objectContaining({ ErrorCode: 'TooLong', FieldName: 'Username' }),
    );
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('a webhook target whose host is 32k dots and a letter', async () => {
    const user = await createUser(env.h);
    const token = env.tokenFor(user.actor);
    const { reply, ms } = await timed(
      'POST',
      '/api/webhooks/subscriptions',
      {
        token,
        body: { Name: 'Dots', Events: ['profile_update'], Url: `https://${'.'.repeat(32 * 1024)}a/hook` },
      },
      { body: { Name: 'Dots', Events: ['profile_update'], Url: 'https://./hook' } },
    );
    expect(reply.status).toBe(400);
    expect(ms).toBeLessThan(BOUND_MS);
  });
});
