// Client applications over GraphQL (ops only): create with a secret shown once, validation, update, rotate,
// suspend, reactivate, delete, search.
import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clientapps/client-secret.js';
import { asClient, asOps, asUser } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

const h = useHarness();

const ops = asOps();
const FIELDS = `id name description clientId clientSecret grantTypes redirectUris allowedScopes allowRefresh isFirstParty
  status lastUsedDateUtc createdDateUtc lastModifiedDateUtc`;
const CREATE = `mutation($input: CreateClientApplicationInput!) { createClientApplication(input: $input) { ${FIELDS} } }`;
const valid = {
  name: 'Fleet planner',
  description: 'Plans fleets',
  grantTypes: ['authorization_code', 'client_credentials'],
  redirectUris: ['https://fleet.example/callback', 'http://127.0.0.1:8080/cb'],
  allowedScopes: ['cars:read', 'openid', 'ops'],
  allowRefresh: true,
};

async function create(input: Record<string, unknown> = valid) {
  return (await h.ok<{ createClientApplication: Record<string, any> }>(ops, CREATE, { input }))
    .createClientApplication;
}

describe('createClientApplication', () => {
  it('creates an Active app and returns a 256-bit secret once, storing only its hash', async () => {
    const a = await create();
    expect(a).toMatchObject({
      name: 'Fleet planner',
      description: 'Plans fleets',
      grantTypes: ['authorization_code', 'client_credentials'],
      redirectUris: valid.redirectUris,
      allowedScopes: ['cars:read', 'openid', 'ops'],
      allowRefresh: true,
      isFirstParty: false,
      status: 'Active',
      lastUsedDateUtc: null,
      createdDateUtc: '2026-07-01T10:00:00.000Z',
    });
    expect(a.clientId).toMatch(/^ca_[\w-]{20}$/);
    expect(Buffer.from(a.clientSecret, 'base64url')).toHaveLength(32);
    const [row] = await h.orm.em
      .fork()
      .getConnection()
      .execute<{ secret_hash: string }[]>('select secret_hash from client_application where id = ?', [a.id]);
    expect(row!.secret_hash).toBe(hashSecret(a.clientSecret));
    expect(row!.secret_hash).not.toContain(a.clientSecret);
    const again = await h.ok<{ clientApplication: Record<string, any> }>(
      ops,
      'query($id: UUID!) { clientApplication(id: $id) { clientSecret } }',
      { id: a.id },
    );
    expect(again.clientApplication.clientSecret).toBeNull();
  });

  it.each([
    ['name', { name: 'ab' }, 'TooShort'],
    ['name', { name: 'x'.repeat(101) }, 'TooLong'],
    ['grantTypes', { grantTypes: [] }, 'NotEmpty'],
    ['redirectUris', { redirectUris: [] }, 'NotEmpty'],
    ['redirectUris', { redirectUris: ['http://fleet.example/cb'] }, 'InvalidFormat'],
    ['redirectUris', { redirectUris: ['https://fleet.example/cb#frag'] }, 'InvalidFormat'],
    ['redirectUris', { redirectUris: ['/relative'] }, 'InvalidFormat'],
    ['allowedScopes', { allowedScopes: ['cars:read', 'cars:fly'] }, 'InvalidValue'],
  ])('refuses an invalid %s (%j) with %s', async (field, change, code) => {
    const r = await h.run(ops, CREATE, { input: { ...valid, ...change } });
    expect(errorOf(r)).toMatchObject({ code, field });
  });

  it('needs no redirect URI for a client-credentials app', async () => {
    const a = await create({
      name: 'Checker',
      grantTypes: ['client_credentials'],
      allowedScopes: ['users:read'],
    });
    expect(a.redirectUris).toEqual([]);
  });
});

describe('managing', () => {
  it('updates only what is given', async () => {
    const a = await create();
    h.clock.advance(60_000);
    const r = await h.ok<{ updateClientApplication: Record<string, any> }>(
      ops,
      `mutation($id: UUID!, $input: UpdateClientApplicationInput!) { updateClientApplication(id: $id, input: $input) { ${FIELDS} } }`,
      { id: a.id, input: { allowedScopes: ['cars:read'], allowRefresh: false } },
    );
    expect(r.updateClientApplication).toMatchObject({
      name: 'Fleet planner',
      allowedScopes: ['cars:read'],
      allowRefresh: false,
      redirectUris: valid.redirectUris,
      lastModifiedDateUtc: '2026-07-01T10:01:00.000Z',
      clientSecret: null,
    });
    const bad = await h.run(
      ops,
      'mutation($id: UUID!, $input: UpdateClientApplicationInput!) { updateClientApplication(id: $id, input: $input) { id } }',
      { id: a.id, input: { redirectUris: [] } },
    );
    expect(errorOf(bad)).toMatchObject({ code: 'NotEmpty', field: 'redirectUris' });
  });

  it('rotates the secret: a new one, returned once', async () => {
    const a = await create();
    const r = await h.ok<{ rotateClientApplicationSecret: Record<string, any> }>(
      ops,
      'mutation($id: UUID!) { rotateClientApplicationSecret(id: $id) { clientId clientSecret } }',
      { id: a.id },
    );
    expect(r.rotateClientApplicationSecret.clientId).toBe(a.clientId);
    expect(r.rotateClientApplicationSecret.clientSecret).not.toBe(a.clientSecret);
    const [row] = await h.orm.em
      .fork()
      .getConnection()
      .execute<{ secret_hash: string }[]>('select secret_hash from client_application where id = ?', [a.id]);
    expect(row!.secret_hash).toBe(hashSecret(r.rotateClientApplicationSecret.clientSecret));
  });

  it('suspends, reactivates and deletes; an unknown id is NotFound', async () => {
    const a = await create();
    const s = await h.ok<{ suspendClientApplication: { status: string } }>(
      ops,
      'mutation($id: UUID!) { suspendClientApplication(id: $id) { status } }',
      { id: a.id },
    );
    expect(s.suspendClientApplication.status).toBe('Suspended');
    const r = await h.ok<{ reactivateClientApplication: { status: string } }>(
      ops,
      'mutation($id: UUID!) { reactivateClientApplication(id: $id) { status } }',
      { id: a.id },
    );
    expect(r.reactivateClientApplication.status).toBe('Active');
    const d = await h.ok<{ deleteClientApplication: { id: string } }>(
      ops,
      'mutation($id: UUID!) { deleteClientApplication(id: $id) { id } }',
      { id: a.id },
    );
    expect(d.deleteClientApplication.id).toBe(a.id);
    const gone = await h.run(ops, 'query($id: UUID!) { clientApplication(id: $id) { id } }', { id: a.id });
    expect(errorOf(gone).code).toBe('NotFound');
  });

  it('searches by name and status, with the page metadata', async () => {
    await create({ ...valid, name: 'Alpha fleet' });
    h.clock.advance(1000);
    const b = await create({ ...valid, name: 'Beta checker' });
    await h.ok(ops, 'mutation($id: UUID!) { suspendClientApplication(id: $id) { id } }', { id: b.id });
    const all = await h.ok<{ clientApplications: Record<string, any> }>(
      ops,
      '{ clientApplications { total limit offset sort { by direction } nodes { name } } }',
    );
    expect(all.clientApplications).toMatchObject({
      total: 2,
      limit: 100,
      offset: 0,
      sort: { by: 'createdDateUtc', direction: 'Descending' },
      nodes: [{ name: 'Beta checker' }, { name: 'Alpha fleet' }],
    });
    const some = await h.ok<{ clientApplications: Record<string, any> }>(
      ops,
      '{ clientApplications(name: "ALPHA", status: Active) { total nodes { name } } }',
    );
    expect(some.clientApplications).toEqual({ total: 1, nodes: [{ name: 'Alpha fleet' }] });
  });
});

describe('who may manage client applications', () => {
  it('is ops only: an operator without the ops scope, a user and a client application are refused', async () => {
    const list = '{ clientApplications { total } }';
    const withoutOps = asOps(undefined, ['account:read', 'users:read', 'users:write']);
    expect(errorOf(await h.run(withoutOps, list)).code).toBe('Forbidden');
    expect(errorOf(await h.run(asUser(ops.id!), list)).code).toBe('Forbidden');
    expect(errorOf(await h.run(asClient(['users:write', 'ops']), list)).code).toBe('Forbidden');
    expect(errorOf(await h.run(asClient(['users:write']), CREATE, { input: valid })).code).toBe('Forbidden');
  });
});
