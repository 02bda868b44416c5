// The PostgreSQL adapter of oidc-provider on the real database: bearer values kept only as hashes, atomic
// consume, revocation by grant, and expired rows purged.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pgAdapter, purgeExpired, tokenHash } from '../../src/oauth/adapter.js';
import { useHarness } from '../support/harness.js';
import { defaultCarShareId } from '../support/scope.js';

const h = useHarness({ resetEach: false });

const rows = (model: string) =>
  h.orm.em
    .fork()
    .getConnection()
    .execute<{ id: string; payload: Record<string, unknown>; expires_at: string | null }[]>(
      'select id, payload, expires_at from oauth_model where model = ?',
      [model],
    );
const Adapter = () => pgAdapter(h.orm, defaultCarShareId(), async () => undefined);
const value = () => randomBytes(32).toString('base64url');

describe('the oidc-provider adapter', () => {
  it('stores a token under the hash of its value, never the value, and finds it by the value', async () => {
    const A = Adapter();
    const at = new A('AccessToken');
    const v = value();
    await at.upsert(v, { jti: v, clientId: 'ca_x', grantId: 'g1', exp: 1 } as never, 60);
    const stored = (await rows('AccessToken')).find((r) => r.id === tokenHash(v));
    expect(stored).toBeTruthy();
    expect(JSON.stringify(stored)).not.toContain(v);
    expect(await at.find(v)).toMatchObject({ jti: v, clientId: 'ca_x', grantId: 'g1' });
    expect(await at.find(value())).toBeUndefined();
  });

  it('does not keep the session cookie an interaction records', async () => {
    const A = Adapter();
    const interaction = new A('Interaction');
    const cookie = value();
    await interaction.upsert('uid-1', { session: { uid: 's1', accountId: 'a1', cookie } } as never, 60);
    expect(JSON.stringify(await rows('Interaction'))).not.toContain(cookie);
    expect((await interaction.find('uid-1'))?.session?.accountId).toBe('a1');
  });

  it('consumes a code once even when two redemptions race', async () => {
    const A = Adapter();
    const code = new A('AuthorizationCode');
    const v = value();
    await code.upsert(v, { jti: v, clientId: 'ca_x', grantId: 'g2' } as never, 60);
    const results = await Promise.allSettled([code.consume(v), code.consume(v), code.consume(v)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason.error).toBe('invalid_grant');
    expect((await code.find(v))?.consumed).toBeTypeOf('number');
  });

  it('revokes by grant only the rows of that grant and model', async () => {
    const A = Adapter();
    const at = new A('AccessToken');
    const rt = new A('RefreshToken');
    const [a, b, c] = [value(), value(), value()];
    await at.upsert(a, { jti: a, grantId: 'g3' } as never, 60);
    await at.upsert(b, { jti: b, grantId: 'g4' } as never, 60);
    await rt.upsert(c, { jti: c, grantId: 'g3' } as never, 60);
    await at.revokeByGrantId('g3');
    expect(await at.find(a)).toBeUndefined();
    expect(await at.find(b)).toBeTruthy();
    expect(await rt.find(c)).toBeTruthy();
  });

  it('hides expired rows and purges them', async () => {
    const A = Adapter();
    const at = new A('AccessToken');
    const [old, live] = [value(), value()];
    await at.upsert(old, { jti: old } as never, 60);
    await at.upsert(live, { jti: live } as never, 60);
    await h.orm.em
      .fork()
      .getConnection()
      .execute(`update oauth_model set expires_at = now() - interval '2 hours' where id = ?`, [
        tokenHash(old),
      ]);
    expect(await at.find(old)).toBeUndefined();
    expect(await purgeExpired(h.orm)).toBeGreaterThanOrEqual(1);
    const ids = (await rows('AccessToken')).map((r) => r.id);
    expect(ids).not.toContain(tokenHash(old));
    expect(ids).toContain(tokenHash(live));
  });

  it('refuses to write clients: they are managed through the API', async () => {
    const A = Adapter();
    await expect(new A('Client').upsert('ca_y', {} as never)).rejects.toThrow(/managed through the API/);
  });
});
