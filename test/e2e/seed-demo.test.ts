// `npm run admin -- seed-demo` as a newcomer runs it beside a running service (CONTRACT §27): the JSON it prints,
// a second run that adds nothing, accounts that sign in, cars `near` finds, bookings in several states, the audit
// trail naming the command line, and the commands it prints on stderr booking a car as printed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openOrm } from '../../src/db/orm.js';
import { entities } from '../../src/modules.js';
import {
  createClient,
  gql,
  type OAuthService,
  OPS,
  startOAuthService,
  userTokens,
} from '../oauth/support.js';
import { type Ran, runCommand } from '../support/command.js';

const REDIRECT = 'http://127.0.0.1:8765/callback';
const AMSTERDAM = '52.3676,4.9041';

let s: OAuthService;
let dataDir: string;
let first: Ran;
let opsToken: string;

/** A command in the repository's folder with the environment a developer's shell has beside `npm start`. */
const sh = (command: string): Promise<Ran> =>
  runCommand('sh', ['-c', command], {
    DATABASE_URL: inject('databaseUrl'),
    DATA_DIR: dataDir,
    PUBLIC_URL: s.origin,
  });

const admin = (...args: string[]) =>
  sh(`npm run --silent admin -- ${args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`);

/** The printed command line that contains `marker`, as printed (indented by two spaces). */
function printed(stderr: string, marker: string): string {
  const line = stderr.split('\n').find((l) => l.startsWith('  ') && l.includes(marker));
  if (!line) throw new Error(`no printed command with ${marker} in:\n${stderr}`);
  return line.trim();
}

async function emptyDatabase(): Promise<void> {
  const orm = await openOrm(inject('databaseUrl'), entities as never, { pool: 1 });
  const conn = orm.em.fork().getConnection();
  // Car shares stay but for those other files made: the default one is made by the migration, as on a deployment.
  const rows = await conn.execute<{ tablename: string }[]>(
    `select tablename from pg_tables where schemaname = 'public' and tablename not like 'mikro_orm_%'
       and tablename <> 'car_share'`,
  );
  if (rows.length) await conn.execute(`truncate ${rows.map((r) => `"${r.tablename}"`).join(', ')} cascade`);
  await conn.execute('delete from car_share where not is_default');
  await orm.close(true);
}

const rest = async (path: string, token: string) => {
  const r = await s.fetch(path, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  return { status: r.status, json: (await r.json()) as any };
};

beforeAll(async () => {
  await emptyDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'carshare-seed-'));
  s = await startOAuthService({ env: { DATA_DIR: dataDir } });
  first = await admin('seed-demo');
  const tool = await createClient(s, {
    grants: ['authorization_code'],
    scopes: ['openid', 'ops', 'bookings:read', 'reports:read', 'account:read', 'users:read'],
    redirectUris: ['https://ops-tool.example/callback'],
  });
  const t = await userTokens(
    s,
    tool,
    'https://ops-tool.example/callback',
    OPS,
    'ops bookings:read reports:read account:read users:read',
  );
  opsToken = t.access_token;
}, 300_000);
afterAll(async () => {
  await s?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const output = () => JSON.parse(first.stdout) as any;

describe('npm run admin -- seed-demo', () => {
  it('prints the accounts with their passwords, the application with its secret and the number of cars', () => {
    expect(first.code, first.stderr).toBe(0);
    const out = output();
    expect(Object.keys(out)).toEqual(['Accounts', 'ClientApplication', 'Cars']);
    expect(out.Accounts.length).toBeGreaterThanOrEqual(2);
    for (const a of out.Accounts) {
      expect(Object.keys(a)).toEqual(['Username', 'Password', 'Roles']);
      expect(a.Username).toMatch(/^[^@\s]+@[^@\s]+$/);
      expect(a.Password.length).toBeGreaterThanOrEqual(12);
      expect(a.Roles).toEqual(['user']);
    }
    expect(out.ClientApplication).toEqual({ ClientId: expect.any(String), ClientSecret: expect.any(String) });
    expect(out.Cars).toBeGreaterThanOrEqual(3);
    // The next step on stderr, like create-client's: the token request with this client, then the first call.
    expect(printed(first.stderr, 'grant_type=client_credentials')).toContain(out.ClientApplication.ClientId);
    expect(printed(first.stderr, '/api/cars')).toContain(`${s.origin}/api/cars`);
  });

  it('runs again without adding anything, and prints the same JSON without the passwords and the secret', async () => {
    const count = async () =>
      s.sql<{ n: string }>(
        `select (select count(*) from user_account) + (select count(*) from car) + (select count(*) from car_booking)
          + (select count(*) from feedback) + (select count(*) from client_application)
          + (select count(*) from audit_entry) + (select count(*) from outbox_event) as n`,
      );
    const before = await count();
    const again = await admin('seed-demo');
    expect(again.code, again.stderr).toBe(0);
    expect(await count()).toEqual(before);
    const out = output();
    expect(JSON.parse(again.stdout)).toEqual({
      Accounts: out.Accounts.map((a: any) => ({ Username: a.Username, Roles: a.Roles })),
      ClientApplication: { ClientId: out.ClientApplication.ClientId },
      Cars: out.Cars,
    });
  }, 300_000);

  it('prints accounts that sign in through the printed application', async () => {
    const { ClientId, ClientSecret } = output().ClientApplication;
    for (const a of output().Accounts) {
      const t = await userTokens(
        s,
        { clientId: ClientId, clientSecret: ClientSecret },
        REDIRECT,
        {
          username: a.Username,
          password: a.Password,
        },
        'openid cars:read',
      );
      expect(t.access_token).toEqual(expect.any(String));
    }
  });

  it('places Listed cars around one city, which near= finds', async () => {
    const r = await rest(`/api/cars?near=${AMSTERDAM}`, opsToken);
    expect(r.status).toBe(200);
    expect(r.json.Cars).toHaveLength(output().Cars);
    for (const c of r.json.Cars) {
      expect(c.Status).toBe('Listed');
      expect(c.DistanceKm).toBeLessThanOrEqual(10);
    }
    const distances = r.json.Cars.map((c: any) => c.DistanceKm);
    expect(distances).toEqual([...distances].sort((x: number, y: number) => x - y));
  });

  it('leaves verified people and bookings in several states of the state machine, with ratings', async () => {
    const r = await rest('/api/bookings?limit=100', opsToken);
    expect(r.status).toBe(200);
    const states = new Set(r.json.Bookings.map((b: any) => b.State));
    for (const st of ['Pending', 'Approved', 'InUse', 'Completed', 'Declined', 'Cancelled'])
      expect(states).toContain(st);
    const borrower = r.json.Bookings[0].BorrowerId;
    const verified = await gql(
      s,
      opsToken,
      `query($id: UUID!) { userAccount(id: $id) { isVerifiedBorrower } }`,
      { id: borrower },
    );
    expect(verified.data?.userAccount).toEqual({ isVerifiedBorrower: true });
    const feedback = await rest('/api/feedbacks?limit=100', opsToken);
    expect(feedback.json.Feedbacks.length).toBeGreaterThanOrEqual(2);
  });

  it('writes its administrative changes to the audit trail as Cli, without ActorId or RequestId', async () => {
    const r = await rest('/api/audit?action=createUserAccount&limit=100', opsToken);
    expect(r.status).toBe(200);
    expect(r.json.AuditEntries.length).toBe(output().Accounts.length);
    for (const e of r.json.AuditEntries) {
      expect(e).toMatchObject({ ActorType: 'Cli', Action: 'createUserAccount', SubjectType: 'UserAccount' });
      expect(e).not.toHaveProperty('ActorId');
      expect(e).not.toHaveProperty('RequestId');
    }
    const decisions = await rest('/api/audit?action=verifyVerification&limit=1', opsToken);
    expect(decisions.json.AuditEntries[0]).toMatchObject({ ActorType: 'Cli', SubjectType: 'Verification' });
  });

  it('prints commands that search the cars as the application and book one as the borrower', async () => {
    const token = await sh(printed(first.stderr, 'grant_type=client_credentials'));
    expect(token.code, token.stderr).toBe(0);
    const appToken = JSON.parse(token.stdout).access_token as string;
    const search = await sh(printed(first.stderr, '/api/cars').replace('ACCESS_TOKEN', appToken));
    expect(JSON.parse(search.stdout).Cars.length).toBe(output().Cars);

    // Two commands book a car: the borrower's token, then the request it prints.
    const signIn = await sh(printed(first.stderr, 'user-token'));
    expect(signIn.code, signIn.stderr).toBe(0);
    const userToken = JSON.parse(signIn.stdout).access_token as string;
    const booked = await sh(printed(first.stderr, '/bookings').replace('ACCESS_TOKEN', userToken));
    expect(booked.code, booked.stderr).toBe(0);
    expect(JSON.parse(booked.stdout).Booking).toMatchObject({
      State: expect.stringMatching(/^(Approved|Pending)$/),
    });
  }, 300_000);
});

describe('npm run admin -- create-user', () => {
  it('takes --first-name and --last-name for the display name, and audits the change as Cli', async () => {
    const r = await admin(
      'create-user',
      '--username',
      'grace@example.com',
      '--password',
      'a long and unusual passphrase',
      '--first-name',
      'Grace',
      '--last-name',
      'Hopper',
    );
    expect(r.code, r.stderr).toBe(0);
    const { Id } = JSON.parse(r.stdout);
    const profile = await gql(
      s,
      opsToken,
      `query($id: UUID!) { userAccount(id: $id) { profile { firstName lastName displayName } } }`,
      { id: Id },
    );
    expect(profile.data?.userAccount.profile).toEqual({
      firstName: 'Grace',
      lastName: 'Hopper',
      displayName: 'Grace H.',
    });
    const audit = await rest(`/api/audit?subjectid=${Id}`, opsToken);
    expect(audit.json.AuditEntries).toHaveLength(1);
    expect(audit.json.AuditEntries[0]).toMatchObject({ ActorType: 'Cli', Action: 'createUserAccount' });
    expect(Object.keys(audit.json.AuditEntries[0])).not.toContain('ActorId');
  }, 300_000);
});

/** Counts read as the DATABASE_URL user (a superuser in tests: every car share's rows). */
async function count(query: string, params: unknown[]): Promise<number> {
  const c = new pg.Client({ connectionString: inject('databaseUrl') });
  await c.connect();
  try {
    return Number((await c.query<{ n: string }>(query, params)).rows[0]!.n);
  } finally {
    await c.end();
  }
}

describe('npm run admin -- seed-demo --car-share', () => {
  it('fills the car share it names, independent of the default one, and prints its address', async () => {
    const made = await admin(
      ...['create-car-share', '--url', 'https://demo-two.cars.example', '--name', 'Demo two'],
      ...['--ops-email', 'ops@demo-two.example'],
    );
    expect(made.code, made.stderr).toBe(0);
    const { Id } = JSON.parse(made.stdout);
    const others = () => count('select count(*) as n from car where car_share_id <> $1', [Id]);
    const before = await others();
    const r = await admin('seed-demo', '--car-share', 'https://demo-two.cars.example');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    // The default car share's sample is no obstacle: these accounts are new, with their passwords shown.
    expect(out.Accounts.map((a: any) => a.Username)).toEqual(output().Accounts.map((a: any) => a.Username));
    for (const a of out.Accounts) expect(a.Password).toEqual(expect.any(String));
    expect(await count('select count(*) as n from car where car_share_id = $1', [Id])).toBe(out.Cars);
    expect(await others()).toBe(before);
    expect(printed(r.stderr, '/api/cars')).toContain('https://demo-two.cars.example/api/cars');
    expect(printed(r.stderr, 'user-token')).toContain(`--car-share ${Id}`);
  }, 300_000);
});
