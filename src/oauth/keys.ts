// A car share's authorization server keys: an RS256 signing key (ID tokens), cookie keys, and the key first-party
// secrets derive from. Each car share has its own (CONTRACT §21: no two car shares share a kid or a key), made in
// its scope the first time they are needed, so every instance signs, reads cookies and derives alike (§12).
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { JWK } from 'oidc-provider';
import type { Orm } from '../db/orm.js';
import { inCarShare } from '../db/scope.js';

export interface OAuthKeys {
  jwks: { keys: JWK[] };
  /** Newest first: Keygrip signs with the first and accepts all. */
  cookieKeys: string[];
  derivationKey: Buffer;
}

const KEYS_LOCK = 727_274_665;
type Kind = 'signing' | 'cookie' | 'derivation';
type Row = { kind: Kind; id: string; material: Record<string, unknown> };

/** A new key of a kind (an RSA key pair takes tens of milliseconds: made only when missing). */
function newKey(kind: Kind, now: Date): Row {
  if (kind === 'signing') {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    // 64 random bits: kids are unique across the deployment's car shares, not only within one.
    const kid = `sig-${now.toISOString().slice(0, 10)}-${randomBytes(8).toString('hex')}`;
    return {
      kind,
      id: kid,
      material: { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' },
    };
  }
  const id = kind === 'cookie' ? randomBytes(6).toString('hex') : 'v1';
  return { kind, id, material: { key: randomBytes(32).toString('base64url') } };
}

const KINDS: readonly Kind[] = ['signing', 'cookie', 'derivation'];

/**
 * The car share's keys, made when missing. `em` is in a transaction of the car share's scope (row-level security
 * shows it only its own keys); concurrent first uses on several instances make them once (an advisory lock per car
 * share).
 */
export async function ensureOAuthKeys(em: EntityManager, carShareId: string): Promise<OAuthKeys> {
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  if (!tx) throw new Error('ensureOAuthKeys: not in a transaction');
  await conn.execute('select pg_advisory_xact_lock(?, hashtext(?))', [KEYS_LOCK, carShareId], 'all', tx);
  const existing = await conn.execute<Row[]>(
    `select kind, id, material from oauth_key where car_share_id = ?
      order by created_date_utc desc, id`,
    [carShareId],
    'all',
    tx,
  );
  const now = new Date();
  const missing = KINDS.filter((kind) => !existing.some((e) => e.kind === kind)).map((k) => newKey(k, now));
  for (const k of missing)
    await conn.execute(
      `insert into oauth_key (car_share_id, kind, id, material, created_date_utc)
       values (?, ?, ?, ?::jsonb, now())`,
      [carShareId, k.kind, k.id, JSON.stringify(k.material)],
      'run',
      tx,
    );
  const rows = [...missing, ...existing];
  const of = (kind: Kind) => rows.filter((r) => r.kind === kind).map((r) => r.material);
  return {
    jwks: { keys: of('signing') as JWK[] },
    cookieKeys: of('cookie').map((m) => String(m.key)),
    derivationKey: Buffer.from(String(of('derivation')[0]?.key), 'base64url'),
  };
}

/** The car share's keys, in a transaction of its own scope. */
export const loadOAuthKeys = (orm: Orm, carShareId: string): Promise<OAuthKeys> =>
  inCarShare(orm, carShareId, (em) => ensureOAuthKeys(em, carShareId));

/** A secret only this car share's keys can compute (e.g. its dashboard's client secret): HMAC of a purpose. */
export function derivedSecret(keys: Pick<OAuthKeys, 'derivationKey'>, purpose: string): string {
  return createHmac('sha256', keys.derivationKey).update(purpose).digest('base64url');
}
