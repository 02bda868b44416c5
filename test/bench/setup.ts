// The bench's own database on the machine's PostgreSQL: created fresh, migrated by the service's migrations,
// seeded, given the client applications the scenarios use, and dropped at the end.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hash } from '@node-rs/argon2';
import pg from 'pg';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import { openDatabase } from '../../src/db/database.js';
import { entities } from '../../src/modules.js';
import { BENCH_PASSWORD, type SeedSize, seed } from './seed.js';
import { type Client, clientCredentialsToken } from './tokens.js';

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `carshare_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

export interface Prepared {
  reader: Client & { id: string };
  app: Client & { id: string };
  /** The car share every scenario runs in (the default one). */
  carShareId: string;
}

/**
 * The second car share: as many rows as the first, so that every policy and every car share condition has another
 * car share's rows to leave out (the row-level security goal of issue 28).
 */
export const SECOND_CAR_SHARE = { host: 'second.localhost', idPrefix: 'second:' } as const;

export const REDIRECT_URI = 'https://localhost/bench/callback';
export const READER_SCOPES = 'cars:read bookings:read';
export const APP_SCOPES = 'cars:read bookings:read bookings:write';

/** Migrates, seeds and registers the two client applications (as `npm run admin -- create-client` would). */
export async function prepare(url: string, dataDir: string, size: SeedSize): Promise<Prepared> {
  const db = await openDatabase({ databaseUrl: url, dataDir, entities });
  try {
    const passwordHash = await hash(BENCH_PASSWORD, {
      algorithm: 2,
      memoryCost: 19_456,
      timeCost: 2,
      parallelism: 1,
    });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // L1 derives unrated subjects' rating ids (SHA-1) in SQL.
    await client.query('create extension if not exists pgcrypto');
    const { rows } = await client.query<{ id: string }>('select id from car_share where is_default');
    const carShareId = rows[0]!.id;
    const inCarShare = (id: string) =>
      client.query(`select set_config('carshare.car_share_id', $1, false)`, [id]);
    await inCarShare(carShareId);
    await seed(client, size, passwordHash);
    const second = await client.query<{ id: string }>(
      `insert into car_share (id, base_url, host, name) values (gen_random_uuid(), $1, $2, 'Second') returning id`,
      [`https://${SECOND_CAR_SHARE.host}`, SECOND_CAR_SHARE.host],
    );
    await inCarShare(second.rows[0]!.id);
    await seed(client, size, passwordHash, SECOND_CAR_SHARE.idPrefix);
    await client.end();
    const r = await createClientFromCli(
      db,
      ['--name', 'Bench reader', '--grant', 'client_credentials', '--scopes', READER_SCOPES],
      carShareId,
    );
    const a = await createClientFromCli(
      db,
      [
        '--name',
        'Bench app',
        '--grant',
        'authorization_code',
        '--redirect-uri',
        REDIRECT_URI,
        '--scopes',
        APP_SCOPES,
      ],
      carShareId,
    );
    return {
      reader: { id: r.Id, clientId: r.ClientId, clientSecret: r.ClientSecret },
      app: { id: a.Id, clientId: a.ClientId, clientSecret: a.ClientSecret },
      carShareId,
    };
  } finally {
    await db.close();
  }
}

/** A token of the bench's reader client, from a service whose certificate lies in `dataDir` (made on first start). */
export const readerToken = (origin: string, dataDir: string, reader: Client): Promise<string> =>
  clientCredentialsToken(
    origin,
    readFileSync(join(dataDir, 'tls', 'localhost.crt'), 'utf8'),
    reader,
    READER_SCOPES,
  );
