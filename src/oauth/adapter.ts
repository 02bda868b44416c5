// oidc-provider's storage on PostgreSQL: one row per (car share, model, id) in oauth_model; bearer values kept only
// as SHA-256; `consume` is a conditional update so concurrent redemptions of one code or refresh token succeed once.
// One adapter per car share: every statement runs in its scope and names its car_share_id (CONTRACT §21, §24, §25),
// so another car share's token, code, session or grant is one that does not exist.
import { hash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import { ANNOUNCED_MODELS, deleteOAuthRows } from '../access/revocation.js';
import type { Orm } from '../db/orm.js';
import { runRead } from '../db/rows.js';
import { carShareEm, deploymentSql, inCarShare } from '../db/scope.js';

/** Models whose id is itself a credential (a token, a code, a session cookie): stored hashed. */
const HASHED = new Set(['AccessToken', 'ClientCredentials', 'RefreshToken', 'AuthorizationCode', 'Session']);
const CONSUMABLE = new Set([
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

// One-shot hashing: every bearer token is hashed on every request to find its cached check (test/bench, S3).
export const tokenHash = (value: string): string => hash('sha256', value, 'base64url');

interface Row {
  id: string;
  payload: AdapterPayload;
  consumed_at: Date | string | null;
}

export type FindClient = (clientId: string) => Promise<AdapterPayload | undefined>;

/** A statement that changes rows, in a short transaction of the car share's scope. */
const write = (em: EntityManager, sql: string, params: unknown[]) =>
  em.transactional((tem) =>
    tem.getConnection().execute<{ affectedRows: number }>(sql, params, 'run', tem.getTransactionContext()),
  );

/** Builds the adapter class a car share's provider instantiates once per model name. */
export function pgAdapter(
  orm: Orm,
  carShareId: string,
  findClient: FindClient,
): new (
  model: string,
) => Adapter {
  const em = carShareEm(orm, carShareId);

  return class PgAdapter implements Adapter {
    readonly #model: string;
    readonly #hashed: boolean;
    constructor(model: string) {
      this.#model = model;
      this.#hashed = HASHED.has(model);
    }

    #key(id: string): string {
      return this.#hashed ? tokenHash(id) : id;
    }

    #toPayload(id: string | undefined, row: Row | undefined): AdapterPayload | undefined {
      if (!row) return undefined;
      const payload: AdapterPayload = { ...row.payload };
      // The model gets its value back as jti only from a lookup by that value.
      if (this.#hashed && id !== undefined) payload.jti = id;
      // A refresh token already exchanged reads as consumed however soon it comes back, so oidc-provider's reuse
      // detection revokes the whole grant (CONTRACT §14, RFC 9700 §4.14.2). Redemptions truly at once are told
      // apart by `consume` below: the loser gets invalid_grant and the winner keeps its tokens.
      if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
      return payload;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      if (this.#model === 'Client') throw new Error('client applications are managed through the API');
      const stored = { ...payload };
      if (this.#hashed) delete stored.jti;
      // An interaction records its session's cookie value, which nothing reads back: not kept.
      if (stored.session?.cookie) stored.session = { ...stored.session, cookie: undefined };
      const expires = expiresIn ? 'now() + make_interval(secs => ?)' : 'null';
      await write(
        em,
        `insert into oauth_model (car_share_id, model, id, payload, grant_id, uid, user_code, expires_at)
         values (?, ?, ?, ?::jsonb, ?, ?, ?, ${expires})
         on conflict (car_share_id, model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
           uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at`,
        [
          carShareId,
          this.#model,
          this.#key(id),
          JSON.stringify(stored),
          payload.grantId ?? null,
          payload.uid ?? null,
          payload.userCode ?? null,
          ...(expiresIn ? [expiresIn] : []),
        ],
      );
    }

    async #findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<Row | undefined> {
      const rows = await runRead<Row>(
        em,
        `select id, payload, consumed_at
           from oauth_model
          where car_share_id = ? and model = ? and ${column} = ? and (expires_at is null or expires_at > now())`,
        [carShareId, this.#model, value],
      );
      return rows[0];
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.#model === 'Client') return findClient(id);
      return this.#toPayload(id, await this.#findBy('id', this.#key(id)));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const row = await this.#findBy('uid', uid);
      return this.#toPayload(this.#hashed ? undefined : row?.id, row);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const row = await this.#findBy('user_code', userCode);
      return this.#toPayload(this.#hashed ? undefined : row?.id, row);
    }

    async consume(id: string): Promise<void> {
      const r = await write(
        em,
        `update oauth_model set consumed_at = now()
          where car_share_id = ? and model = ? and id = ? and consumed_at is null`,
        [carShareId, this.#model, this.#key(id)],
      );
      // Lost a race with a concurrent redemption: the loser gets invalid_grant, the winner keeps its tokens.
      if (r.affectedRows === 0 && CONSUMABLE.has(this.#model))
        throw new errors.InvalidGrant(`${this.#model} already consumed`);
    }

    // Tokens and grants a cached token check depends on are deleted with their announcement, in one transaction
    // (src/access/revocation.ts); the other models in one statement.
    async destroy(id: string): Promise<void> {
      if (ANNOUNCED_MODELS.has(this.#model))
        return deleteOAuthRows(em, { model: this.#model, id: this.#key(id) });
      await write(em, 'delete from oauth_model where car_share_id = ? and model = ? and id = ?', [
        carShareId,
        this.#model,
        this.#key(id),
      ]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      if (ANNOUNCED_MODELS.has(this.#model)) return deleteOAuthRows(em, { model: this.#model, grantId });
      await write(em, 'delete from oauth_model where car_share_id = ? and model = ? and grant_id = ?', [
        carShareId,
        this.#model,
        grantId,
      ]);
    }
  };
}

const PURGE = `delete from oauth_model where car_share_id = ? and expires_at < now() - interval '1 hour'`;

/**
 * Housekeeping: rows past their expiry (kept an hour, so late reuse of a code still reads as reuse). The car shares
 * that have some are found across car shares (their ids only); each one's rows are deleted in its own scope.
 * Nothing to announce: every row it deletes expired an hour ago, and only live tokens and grants are announced.
 */
export async function purgeExpired(orm: Orm): Promise<number> {
  const due = await deploymentSql<{ car_share_id: string }>(
    orm,
    `select distinct car_share_id from oauth_model where expires_at < now() - interval '1 hour'`,
  );
  let purged = 0;
  for (const { car_share_id: id } of due)
    purged += await inCarShare(orm, id, async (em) => {
      const r = await em
        .getConnection()
        .execute<{ affectedRows: number }>(PURGE, [id], 'run', em.getTransactionContext());
      return r.affectedRows;
    });
  return purged;
}
