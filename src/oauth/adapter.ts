// oidc-provider's storage on PostgreSQL: one row per (model, id) in oauth_model; bearer values kept only as
// SHA-256; `consume` is a conditional update so concurrent redemptions of one code or refresh token succeed once.
import { hash } from 'node:crypto';
import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import type { Orm } from '../db/orm.js';

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

/** Builds the adapter class oidc-provider instantiates once per model name. */
export function pgAdapter(orm: Orm, findClient: FindClient): new (model: string) => Adapter {
  const run = <T>(sql: string, params: unknown[], method: 'all' | 'run' = 'all') =>
    orm.em.fork().getConnection().execute<T & object>(sql, params, method);

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
      await run(
        `insert into oauth_model (model, id, payload, grant_id, uid, user_code, expires_at)
         values (?, ?, ?::jsonb, ?, ?, ?, ${expires})
         on conflict (car_share_id, model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
           uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at`,
        [
          this.#model,
          this.#key(id),
          JSON.stringify(stored),
          payload.grantId ?? null,
          payload.uid ?? null,
          payload.userCode ?? null,
          ...(expiresIn ? [expiresIn] : []),
        ],
        'run',
      );
    }

    async #findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<Row | undefined> {
      const rows = await run<Row[]>(
        `select id, payload, consumed_at
           from oauth_model
          where model = ? and ${column} = ? and (expires_at is null or expires_at > now())`,
        [this.#model, value],
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
      const r = await run<{ affectedRows: number }>(
        'update oauth_model set consumed_at = now() where model = ? and id = ? and consumed_at is null',
        [this.#model, this.#key(id)],
        'run',
      );
      // Lost a race with a concurrent redemption: the loser gets invalid_grant, the winner keeps its tokens.
      if (r.affectedRows === 0 && CONSUMABLE.has(this.#model))
        throw new errors.InvalidGrant(`${this.#model} already consumed`);
    }

    async destroy(id: string): Promise<void> {
      await run('delete from oauth_model where model = ? and id = ?', [this.#model, this.#key(id)], 'run');
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await run('delete from oauth_model where model = ? and grant_id = ?', [this.#model, grantId], 'run');
    }
  };
}

/** Housekeeping: rows past their expiry (kept an hour, so late reuse of a code still reads as reuse). */
export async function purgeExpired(orm: Orm): Promise<number> {
  const r = await orm.em
    .fork()
    .getConnection()
    .execute<{ affectedRows: number }>(
      `delete from oauth_model where expires_at < now() - interval '1 hour'`,
      [],
      'run',
    );
  return r.affectedRows;
}
