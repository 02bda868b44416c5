// Signing secrets: `whsec_<base64>` per Standard Webhooks, kept encrypted at rest (AES-256-GCM) with a
// per-car-share data key; the plain secret is only ever shown by create and rotate.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../db/rows.js';
import { scopeOf } from './webhook.scope.js';

const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
export const SECRET_MIN_BYTES = 24;
export const SECRET_MAX_BYTES = 64;

export const generateSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/** A supplied secret in canonical `whsec_` form, or undefined when it is not base64 of 24–64 bytes. */
export function parseSecret(input: string): string | undefined {
  const raw = input.trim().replace(/^whsec_/, '');
  if (!BASE64.test(raw) || raw.length % 4 === 1) return undefined;
  const bytes = Buffer.from(raw, 'base64');
  if (bytes.length < SECRET_MIN_BYTES || bytes.length > SECRET_MAX_BYTES) return undefined;
  return `${PREFIX}${bytes.toString('base64')}`;
}

/** `v1.<iv>.<tag>.<ciphertext>`; the subscription id is bound in as associated data, so rows can't swap. */
export function encryptSecret(key: Buffer, secret: string, subscriptionId: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(subscriptionId));
  const ct = Buffer.concat([c.update(secret, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), ct.toString('base64')].join('.');
}

export function decryptSecret(key: Buffer, blob: string, subscriptionId: string): string {
  const [version, iv, tag, ct] = blob.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unknown secret encoding');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  d.setAAD(Buffer.from(subscriptionId));
  d.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([d.update(Buffer.from(ct, 'base64')), d.final()]).toString('utf8');
}

/** The data key of the car share `em` is scoped to, made on first use; concurrent first uses agree on one row. */
export async function loadDataKey(em: EntityManager): Promise<Buffer> {
  const carShareId = scopeOf(em);
  const select = 'select "key" from "webhook_secret_key" where "car_share_id" = ? and "id" = 1';
  let [row] = await runSql<{ key: string }>(em, select, [carShareId]);
  if (!row) {
    await runSql(
      em,
      `insert into "webhook_secret_key" ("car_share_id", "id", "key", "created_date_utc") values (?, 1, ?, now())
        on conflict do nothing`,
      [carShareId, randomBytes(32).toString('base64')],
    );
    [row] = await runSql<{ key: string }>(em, select, [carShareId]);
  }
  if (!row) throw new Error('the webhook secret key could not be created');
  return Buffer.from(row.key, 'base64');
}
