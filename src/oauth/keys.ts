// The authorization server's keys: an RS256 signing key (ID tokens), cookie keys, and the key first-party secrets
// derive from. Made once in the database, so every instance signs, reads cookies and derives alike (CONTRACT §12).
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { JWK } from 'oidc-provider';
import type { Orm } from '../db/orm.js';

export interface OAuthKeys {
  jwks: { keys: JWK[] };
  /** Newest first: Keygrip signs with the first and accepts all. */
  cookieKeys: string[];
  derivationKey: Buffer;
}

const KEYS_LOCK = 727_274_665;
type Kind = 'signing' | 'cookie' | 'derivation';
type Row = { kind: Kind; id: string; material: Record<string, unknown> };

function newKeys(now: Date): Row[] {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `sig-${now.toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`;
  return [
    {
      kind: 'signing',
      id: kid,
      material: { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' },
    },
    {
      kind: 'cookie',
      id: randomBytes(6).toString('hex'),
      material: { key: randomBytes(32).toString('base64url') },
    },
    { kind: 'derivation', id: 'v1', material: { key: randomBytes(32).toString('base64url') } },
  ];
}

export async function loadOAuthKeys(orm: Orm): Promise<OAuthKeys> {
  const em = orm.em.fork();
  const rows = await em.transactional(async (tem) => {
    const conn = tem.getConnection();
    const tx = tem.getTransactionContext();
    await conn.execute('select pg_advisory_xact_lock(?)', [KEYS_LOCK], 'all', tx);
    const existing = await conn.execute<Row[]>(
      'select kind, id, material from oauth_key order by created_date_utc desc, id',
      [],
      'all',
      tx,
    );
    const missing = newKeys(new Date()).filter((k) => !existing.some((e) => e.kind === k.kind));
    for (const k of missing)
      await conn.execute(
        'insert into oauth_key (kind, id, material, created_date_utc) values (?, ?, ?::jsonb, now())',
        [k.kind, k.id, JSON.stringify(k.material)],
        'run',
        tx,
      );
    return [...missing, ...existing];
  });
  const of = (kind: Kind) => rows.filter((r) => r.kind === kind).map((r) => r.material);
  return {
    jwks: { keys: of('signing') as JWK[] },
    cookieKeys: of('cookie').map((m) => String(m.key)),
    derivationKey: Buffer.from(String(of('derivation')[0]?.key), 'base64url'),
  };
}

/** A secret only this deployment can compute (e.g. the dashboard's client secret): HMAC of a purpose. */
export function derivedSecret(keys: Pick<OAuthKeys, 'derivationKey'>, purpose: string): string {
  return createHmac('sha256', keys.derivationKey).update(purpose).digest('base64url');
}
