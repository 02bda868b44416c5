// The token cache forgets an entry when it hears that its token, grant, account or app changed (NOTIFY
// carshare_auth, sent in the change's transaction), including changes made by another process; and it caches
// nothing while it cannot hear those announcements.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientActor, userActor } from '../../src/access/actor.js';
import { TokenCache } from '../../src/access/token.cache.js';
import { defaultCarShareId } from '../support/scope.js';
import { waitFor } from '../support/wait.js';

const log = pino({ level: 'silent' });
let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client({ connectionString: inject('databaseUrl') });
  await db.connect();
});
afterAll(async () => db.end());

/** The car share every entry here belongs to, but in the test of entries per car share. */
const CS = 'car-share-a';
const soon = () => Math.floor(Date.now() / 1000) + 600;
/** Until the cache has heard the announcement: it arrives asynchronously, over its own connection. */
const heard = (cond: () => boolean) =>
  waitFor(cond, { timeoutMs: 2000, what: 'the cache to hear the change' });

async function newAccount(): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into user_account (car_share_id, id, username, password_hash, roles, status, failed_sign_ins, created_date_utc, last_modified_date_utc)
     values ($3, $1, $2, 'x', '["user"]', 'Active', 0, now(), now())`,
    [id, `${id}@example.com`, defaultCarShareId()],
  );
  return id;
}

/** Another process suspends the account as the service does: the change and its announcement in one transaction. */
async function suspend(account: string): Promise<void> {
  await db.query('begin');
  await db.query(`update user_account set status = 'Suspended' where id = $1`, [account]);
  await db.query(`select pg_notify('carshare_auth', 'account:' || $1)`, [account]);
  await db.query('commit');
}

describe('TokenCache', () => {
  it('serves an entry until an account change is announced by another connection', async () => {
    const cache = new TokenCache();
    const stop = await cache.listen(inject('databaseUrl'), log);
    try {
      const account = await newAccount();
      const other = await newAccount();
      const g = cache.generation;
      cache.set(
        CS,
        't1',
        { actor: userActor(account), exp: soon(), clientId: 'c1', grantId: 'g1', accountId: account },
        g,
        Date.now(),
      );
      cache.set(
        CS,
        't2',
        { actor: userActor(other), exp: soon(), clientId: 'c1', grantId: 'g2', accountId: other },
        g,
        Date.now(),
      );
      expect(cache.get(CS, 't1', Date.now())?.accountId).toBe(account);
      await suspend(account);
      await heard(() => cache.get(CS, 't1', Date.now()) === undefined);
      expect(cache.get(CS, 't2', Date.now())?.accountId).toBe(other);
    } finally {
      await stop();
    }
  });

  it('never serves an entry invalidated by a change committed before the lookup, without waiting', async () => {
    const cache = new TokenCache();
    const stop = await cache.listen(inject('databaseUrl'), log);
    try {
      for (let i = 0; i < 20; i++) {
        const account = await newAccount();
        const entry = {
          actor: userActor(account),
          exp: soon(),
          clientId: 'c1',
          grantId: `g${i}`,
          accountId: account,
        };
        cache.set(CS, 'k', entry, cache.generation, Date.now());
        expect((await cache.lookup(CS, 'k', Date.now))?.accountId).toBe(account);
        await suspend(account);
        // Several callers at once share barrier queries; every one of them sees the change.
        const seen = await Promise.all([1, 2, 3].map(() => cache.lookup(CS, 'k', Date.now)));
        expect(seen).toEqual([undefined, undefined, undefined]);
      }
    } finally {
      await stop();
    }
  });

  it('forgets by token, grant and client application', async () => {
    const cache = new TokenCache();
    const stop = await cache.listen(inject('databaseUrl'), log);
    try {
      const put = (key: string, clientId: string, grantId?: string) =>
        cache.set(
          CS,
          key,
          { actor: clientActor(randomUUID(), []), exp: soon(), clientId, grantId },
          cache.generation,
          Date.now(),
        );
      put('a', 'ca_1');
      put('b', 'ca_2', 'grant-b');
      put('c', 'ca_3');
      await db.query(`select pg_notify('carshare_auth', 'token:a')`);
      await db.query(`select pg_notify('carshare_auth', 'grant:grant-b')`);
      await heard(() => !cache.get(CS, 'a', Date.now()) && !cache.get(CS, 'b', Date.now()));
      expect(cache.get(CS, 'c', Date.now())).toBeTruthy();
      await db.query(`select pg_notify('carshare_auth', 'client:ca_3')`);
      await heard(() => !cache.get(CS, 'c', Date.now()));
    } finally {
      await stop();
    }
  });

  it('keeps entries per car share and token, and forgets a token in every car share', async () => {
    const cache = new TokenCache();
    const stop = await cache.listen(inject('databaseUrl'), log);
    try {
      const entry = (clientId: string) => ({
        actor: clientActor(randomUUID(), []),
        exp: soon(),
        clientId,
      });
      cache.set('car-share-a', 'same', entry('ca_a'), cache.generation, Date.now());
      expect(cache.get('car-share-b', 'same', Date.now())).toBeUndefined();
      expect(await cache.lookup('car-share-b', 'same', Date.now)).toBeUndefined();
      cache.set('car-share-b', 'same', entry('ca_b'), cache.generation, Date.now());
      cache.set('car-share-b', 'other', entry('ca_b'), cache.generation, Date.now());
      expect(cache.get('car-share-a', 'same', Date.now())?.clientId).toBe('ca_a');
      expect(cache.get('car-share-b', 'same', Date.now())?.clientId).toBe('ca_b');
      await db.query(`select pg_notify('carshare_auth', 'token:same')`);
      await heard(
        () => !cache.get('car-share-a', 'same', Date.now()) && !cache.get('car-share-b', 'same', Date.now()),
      );
      expect(cache.get('car-share-b', 'other', Date.now())).toBeTruthy();
    } finally {
      await stop();
    }
  });

  it('does not cache an answer that raced an invalidation, an expired token, or anything while not listening', async () => {
    const cache = new TokenCache();
    const entry = { actor: clientActor(randomUUID(), []), exp: soon(), clientId: 'ca_x' };
    cache.set(CS, 'x', entry, cache.generation, Date.now());
    expect(cache.get(CS, 'x', Date.now())).toBeUndefined();
    const stop = await cache.listen(inject('databaseUrl'), log);
    try {
      const g = cache.generation;
      cache.forget('client:someone-else');
      cache.set(CS, 'x', entry, g, Date.now());
      expect(cache.get(CS, 'x', Date.now())).toBeUndefined();
      cache.set(CS, 'y', { ...entry, exp: Math.floor(Date.now() / 1000) + 1 }, cache.generation, Date.now());
      expect(cache.get(CS, 'y', Date.now() + 1500)).toBeUndefined();
    } finally {
      await stop();
    }
  });

  /** A listening cache holding one entry, and what its connections are sent meanwhile (`pg` queries, Syncs too). */
  async function watchedCache(use: (cache: TokenCache, sent: unknown[], token: string) => Promise<void>) {
    const cache = new TokenCache();
    const stop = await cache.listen(inject('databaseUrl'), log);
    const query = pg.Client.prototype.query;
    const sent: unknown[] = [];
    pg.Client.prototype.query = function spy(this: pg.Client, ...args: unknown[]) {
      sent.push(args[0]);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const token = randomUUID();
      const actor = clientActor(randomUUID(), []);
      cache.set(CS, token, { actor, exp: soon(), clientId: 'ca_s' }, cache.generation, Date.now());
      await use(cache, sent, token);
    } finally {
      pg.Client.prototype.query = query;
      await stop();
    }
  }

  it('waits on a protocol Sync of the listening connection: no SQL statement per cached lookup', async () => {
    await watchedCache(async (cache, sent, token) => {
      for (let i = 0; i < 3; i++) expect(await cache.lookup(CS, token, Date.now)).toBeDefined();
      expect(sent.length).toBeGreaterThan(0);
      const statements = sent.filter(
        (q) => typeof q === 'string' || (q as { text?: string }).text !== undefined,
      );
      expect(statements).toEqual([]);
    });
  });

  it('sends no barrier of its own for a request that already passed one sent after it arrived (heard)', async () => {
    await watchedCache(async (cache, sent, token) => {
      for (let i = 0; i < 3; i++) expect(await cache.lookup(CS, token, Date.now, true)).toBeDefined();
      expect(sent).toEqual([]);
      expect(await cache.lookup(CS, token, Date.now)).toBeDefined();
      expect(sent).toHaveLength(1);
    });
  });
});
