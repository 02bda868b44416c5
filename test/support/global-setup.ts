// One fresh database per test run: on TEST_DATABASE_URL's server (default the machine's PostgreSQL), or on an
// embedded PostgreSQL when none is reachable. Migrated once here; dropped at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { secureAppRole } from '../../src/db/database.js';
import { type EmbeddedDatabase, startEmbedded } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';
import { openOrm } from '../../src/db/orm.js';
import { entities } from '../../src/modules.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** The default car share's Id (its row is made by the migration that made car shares). */
    defaultCarShareId: string;
  }
}

const DEFAULT_SERVER = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

async function reachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

export default async function setup(project: TestProject) {
  let serverUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_SERVER;
  let embedded: EmbeddedDatabase | undefined;
  let embeddedDir: string | undefined;
  if (!(await reachable(serverUrl))) {
    if (process.env.CI === 'true' && process.env.TEST_DATABASE_URL)
      throw new Error(`TEST_DATABASE_URL ${process.env.TEST_DATABASE_URL} is not reachable`);
    embeddedDir = mkdtempSync(join(tmpdir(), 'carshare-test-pg-'));
    embedded = await startEmbedded(embeddedDir, 0);
    serverUrl = embedded.url;
    process.stdout.write(`No PostgreSQL at the test URL; using an embedded one at ${serverUrl}\n`);
  }
  const name = `carshare_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();

  const orm = await openOrm(databaseUrl, entities as never);
  await migrate(orm, databaseUrl);
  const [dflt] = await orm.em
    .fork()
    .getConnection()
    .execute<{ id: string }[]>('select id from car_share where is_default');
  await orm.close(true);
  // As every start does (openDatabase): the app role made and granted, isolation checked (CONTRACT §24).
  await secureAppRole(databaseUrl, 'carshare_app');
  project.provide('databaseUrl', databaseUrl);
  project.provide('defaultCarShareId', dflt!.id);

  return async () => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
    await embedded?.stop();
    if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
  };
}
