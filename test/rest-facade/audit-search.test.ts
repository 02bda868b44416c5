// GET /api/audit over HTTPS (CONTRACT §18): a section-3 search with its filters and default sort, read by ops and
// by client applications with `reports:read` only, documented in OpenAPI, and kept fresh in the REST cache.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { type World, world } from '../factories/bookings.js';
import { asClient, asOps, scopesWithout } from '../support/actors.js';
import { useRest } from './support.js';

const env = useRest({ resetEach: true });

type Row = Record<string, string>;

const opsId = randomUUID();
let ops: string;
let w: World;
beforeEach(async () => {
  env.h.clock.set('2026-07-01T10:00:00.000Z');
  ops = env.tokenFor(asOps(opsId));
  w = await world(env.h);
});

describe('GET /api/audit', () => {
  it('is a search: filters by subject, type, action, actor and period; newest first by default', async () => {
    const appId = randomUUID();
    const app = env.tokenFor(asClient(['users:write', 'reports:read'], appId));
    await env.call('PUT', `/api/cars/${w.carId}/unlist`, { token: ops });
    env.h.clock.set('2026-07-01T11:00:00.000Z');
    await env.call('PUT', `/api/useraccounts/${w.owner.id}/suspend`, { token: app });
    env.h.clock.set('2026-07-01T12:00:00.000Z');
    await env.call('PUT', `/api/cars/${w.carId}/list`, { token: ops });

    const all = await env.call('GET', '/api/audit', { token: ops });
    expect(all.status).toBe(200);
    expect(Object.keys(all.json)).toEqual(['AuditEntries', 'Metadata']);
    expect(all.json.Metadata).toMatchObject({
      Total: 3,
      Sort: { By: 'OccurredDateUtc', Direction: 'Descending' },
    });
    expect(all.json.AuditEntries.map((e: Row) => e.Action)).toEqual([
      'listCar',
      'suspendUserAccount',
      'unlistCar',
    ]);
    expect(all.json.AuditEntries[1]).toMatchObject({
      OccurredDateUtc: '2026-07-01T11:00:00.000Z',
      ActorId: appId,
      ActorType: 'ClientApplication',
      Action: 'suspendUserAccount',
      SubjectType: 'UserAccount',
      SubjectId: w.owner.id,
    });
    expect(all.json.AuditEntries[1].RequestId).toMatch(/\S/);

    const q = async (query: string) =>
      ((await env.call('GET', `/api/audit?${query}`, { token: app })).json.AuditEntries as Row[]).map(
        (e) => e.Action,
      );
    expect(await q(`subjectid=${w.carId}`)).toEqual(['listCar', 'unlistCar']);
    expect(await q('SubjectType=UserAccount')).toEqual(['suspendUserAccount']);
    expect(await q('action=unlistcar')).toEqual(['unlistCar']);
    expect(await q(`actorid=${opsId}&sort=occurreddateutc`)).toEqual(['unlistCar', 'listCar']);
    expect(await q('fromutc=2026-07-01T10:30:00Z&toutc=2026-07-01T12:00:00Z')).toEqual([
      'suspendUserAccount',
    ]);

    const backwards = await env.call(
      'GET',
      '/api/audit?fromutc=2026-07-02T00:00:00Z&toutc=2026-07-01T00:00:00Z',
      {
        token: ops,
      },
    );
    expect(backwards.status).toBe(400);
    const badSort = await env.call('GET', '/api/audit?sort=secret', { token: ops });
    expect(badSort.status).toBe(400);
    expect(badSort.json.ResponseStatus.Errors[0].FieldName).toBe('Sort');
  });

  it('ops and apps with reports:read may read it; an app without it and a plain user may not', async () => {
    await env.call('PUT', `/api/cars/${w.carId}/unlist`, { token: ops });
    const read = (actorToken: string) => env.call('GET', '/api/audit', { token: actorToken });
    expect((await read(ops)).status).toBe(200);
    const reader = await read(env.tokenFor(asClient(['reports:read'])));
    expect(reader.status).toBe(200);
    expect(reader.json.AuditEntries).toHaveLength(1);
    expect((await read(env.tokenFor(asClient(scopesWithout('reports:read'))))).status).toBe(403);
    expect((await read(env.tokenFor(w.owner.actor))).status).toBe(403);
    expect((await env.call('GET', '/api/audit')).status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await env.call('GET', '/api/openapi.json')).json;
    const path = Object.keys(doc.paths).find((p) => p.endsWith('/audit'));
    expect(path).toBeDefined();
    expect(doc.paths[path!].get.summary).toMatch(/audit trail/);
  });

  it('a cached page goes stale when a change adds an entry', async () => {
    // A reader of its own: the cache is per caller, and earlier tests' truncations bump no version.
    const reader = env.tokenFor(asOps());
    expect((await env.call('GET', '/api/audit', { token: reader })).json.Metadata.Total).toBe(0);
    await env.call('PUT', `/api/cars/${w.carId}/unlist`, { token: ops });
    expect((await env.call('GET', '/api/audit', { token: reader })).json.Metadata.Total).toBe(1);
  });
});
