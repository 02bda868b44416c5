// GET /api/reports/summary over HTTPS: the Summary envelope, the range parameters, who may read it, and a
// cached summary made stale by the changes it counts.
import { beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { world } from '../factories/bookings.js';
import { asClient, asOps } from '../support/actors.js';
import { pascalDeep, useRest } from './support.js';

const env = useRest({ resetEach: true });

let ops: string;
beforeEach(async () => {
  env.h.clock.set('2026-07-01T10:00:00.000Z');
  ops = env.tokenFor(asOps());
});

describe('GET /api/reports/summary', () => {
  it('answers {"Summary":{...}} in PascalCase, over the last 30 days by default', async () => {
    await world(env.h);
    const r = await env.call('GET', '/api/reports/summary', { token: ops });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['Summary']);
    expect(pascalDeep(r.json)).toBe(true);
    expect(r.json.Summary).toMatchObject({
      FromUtc: '2026-06-01T10:00:00.000Z',
      ToUtc: '2026-07-01T10:00:00.000Z',
      BookingsByState: { Pending: 0, Approved: 0, InUse: 0, Completed: 0 },
      Users: { Active: 2, Unverified: 1 },
      Cars: { Listed: 1, Unverified: 0 },
      BookingsInRange: { Created: 0, Used: 0, Completed: 0 },
    });
    expect(r.json.Summary.Id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers.get('etag')).toBeTruthy();
  });

  it('takes fromutc and toutc in any casing; a backwards range or a non-UTC date is 400 naming the field', async () => {
    const r = await env.call(
      'GET',
      '/api/reports/summary?FROMUTC=2026-06-01T00:00:00Z&to_utc=2026-06-08T00:00:00Z',
      {
        token: ops,
      },
    );
    expect(r.status).toBe(200);
    expect(r.json.Summary).toMatchObject({
      FromUtc: '2026-06-01T00:00:00.000Z',
      ToUtc: '2026-06-08T00:00:00.000Z',
    });
    const back = await env.call(
      'GET',
      '/api/reports/summary?fromutc=2026-06-08T00:00:00Z&toutc=2026-06-01T00:00:00Z',
      {
        token: ops,
      },
    );
    expect(back.status).toBe(400);
    expect(back.json.ResponseStatus).toMatchObject({ ErrorCode: 'InvalidValue' });
    expect(back.json.ResponseStatus.Errors[0].FieldName).toBe('FromUtc');
    const local = await env.call('GET', '/api/reports/summary?fromutc=2026-06-01T00:00:00%2B02:00', {
      token: ops,
    });
    expect(local.status).toBe(400);
    expect(local.json.ResponseStatus.ErrorCode).toBe('InvalidFormat');
  });

  it('is 401 without a token, 403 for a user, 200 for a client application with reports:read', async () => {
    const user = await createUser(env.h);
    expect((await env.call('GET', '/api/reports/summary')).status).toBe(401);
    const asUser = await env.call('GET', '/api/reports/summary', { token: env.tokenFor(user.actor) });
    expect(asUser.status).toBe(403);
    expect(asUser.json.ResponseStatus.ErrorCode).toBe('Forbidden');
    // REST speaks REST: the refusal says what was refused in words, not the GraphQL operation behind the route.
    expect(asUser.json.ResponseStatus.Message).toBe('Your role may not read summaries');
    const client = env.tokenFor(asClient(['reports:read']));
    expect((await env.call('GET', '/api/reports/summary', { token: client })).status).toBe(200);
    const without = env.tokenFor(asClient(['users:read']));
    const scoped = await env.call('GET', '/api/reports/summary', { token: without });
    expect(scoped.status).toBe(403);
    expect(scoped.json.ResponseStatus.Message).toBe('The scope reports:read is needed to read summaries');
  });

  it('is cached, and a change to what it counts makes the next GET fresh', async () => {
    const user = await createUser(env.h);
    const first = await env.call('GET', '/api/reports/summary', { token: ops });
    expect(first.json.Summary.Users.Active).toBe(1);
    const etag = first.headers.get('etag')!;
    const again = await env.call('GET', '/api/reports/summary', {
      token: ops,
      headers: { 'If-None-Match': etag },
    });
    expect(again.status).toBe(304);
    const suspended = await env.call('PUT', `/api/useraccounts/${user.id}/suspend`, { token: ops });
    expect(suspended.status).toBe(202);
    const after = await env.call('GET', '/api/reports/summary', {
      token: ops,
      headers: { 'If-None-Match': etag },
    });
    expect(after.status).toBe(200);
    expect(after.json.Summary.Users.Active).toBe(0);
  });
});
