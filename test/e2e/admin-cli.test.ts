// `npm run admin` as an operator runs it: usage and exit 2 for a wrong call, refusals in the API's error shape; car
// shares made and listed, and the other commands run in the car share `--car-share` names (CONTRACT §22).
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { npmRun as runScript } from '../support/command.js';
import { startTestService, type TestService } from '../support/service.js';

const admin = (...args: string[]) => npmRun('admin', ...args);

/** `PUBLIC_URL` of the commands, when a test service runs: the default car share's address is the service's. */
let publicUrl: string | undefined;

const npmRun = (script: string, ...args: string[]) =>
  runScript(script, args, {
    DATABASE_URL: inject('databaseUrl'),
    ...(publicUrl ? { PUBLIC_URL: publicUrl } : {}),
  });

describe('npm run admin', () => {
  it('prints the usage and exits 2 with no command, an unknown command or an unknown option', async () => {
    for (const args of [
      [],
      ['make-coffee'],
      ['create-user', '--username', 'a@example.com', '--colour', 'red'],
    ]) {
      const r = await admin(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('npm run admin -- create-user --username U --password P [--ops]');
      expect(r.stderr).toContain('npm run admin -- create-client --name N');
      expect(r.stdout).toBe('');
    }
  }, 180_000);

  it('prints the usage and exits 2 when a required option is missing, --scopes of create-client included', async () => {
    for (const args of [
      ['create-client', '--name', 'No scopes', '--grant', 'client_credentials'],
      ['create-client', '--grant', 'client_credentials', '--scopes', 'cars:read'],
      ['create-user', '--username', 'a@example.com'],
    ]) {
      const r = await admin(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/missing --(scopes|name|password)/);
      expect(r.stderr).toContain('--scopes "a b"');
      expect(r.stdout).toBe('');
    }
  }, 180_000);

  it('names a refused value by the option typed and lists the allowed values of a closed list', async () => {
    const scopes = await admin(
      'create-client',
      '--name',
      'Bad scope',
      '--grant',
      'client_credentials',
      '--scopes',
      'cars:read cars:fly',
    );
    expect(scopes.code).toBe(1);
    const body = JSON.parse(scopes.stderr.trim());
    expect(body).toMatchObject({
      ErrorCode: 'InvalidValue',
      Errors: [{ ErrorCode: 'InvalidValue', FieldName: '--scopes' }],
    });
    expect(body.Message).toContain('--scopes');
    expect(body.Message).not.toContain('AllowedScopes');
    expect(body.Errors[0].Meta.Allowed).toEqual(
      expect.arrayContaining(['cars:read', 'bookings:write', 'openid', 'ops']),
    );

    const grant = await admin(
      'create-client',
      '--name',
      'Bad grant',
      '--grant',
      'password',
      '--scopes',
      'cars:read',
    );
    expect(grant.code).toBe(1);
    expect(JSON.parse(grant.stderr.trim()).Errors[0]).toMatchObject({
      FieldName: '--grant',
      Meta: { Allowed: ['client_credentials', 'authorization_code'] },
    });
  }, 180_000);

  it('refuses bad input with the API’s ErrorCode and Message, FieldName the option typed, and exits 1', async () => {
    const r = await admin('create-user', '--username', 'not-an-email', '--password', 'short');
    expect(r.code).toBe(1);
    const body = JSON.parse(r.stderr.trim());
    expect(body).toMatchObject({ ErrorCode: expect.any(String), Message: expect.any(String) });
    expect(body.Errors.length).toBeGreaterThan(0);
    for (const e of body.Errors) {
      expect(Object.keys(e).sort()).toEqual(expect.arrayContaining(['ErrorCode', 'FieldName', 'Message']));
      expect(e).not.toHaveProperty('code');
      expect(e).not.toHaveProperty('field');
      expect(e.FieldName).toMatch(/^--[a-z]/);
    }
    expect(body.Errors.map((e: { FieldName: string }) => e.FieldName)).toContain('--username');
    expect(body.Message).toBe(body.Errors[0].Message);
  }, 180_000);

  it('user-token explains itself with --help, and prints the usage and exits 2 for a wrong call', async () => {
    const help = await npmRun('user-token', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--scope');
    expect(help.stdout).toContain('every scope the application is allowed');
    for (const args of [
      ['--client-id', 'x'],
      ['--colour', 'red'],
    ]) {
      const r = await npmRun('user-token', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('usage: npm run --silent user-token');
    }
  }, 180_000);
});

/** Rows read as the DATABASE_URL user (a superuser in tests: every car share's rows). */
async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: inject('databaseUrl') });
  await c.connect();
  try {
    return (await c.query(query, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** `GET /` of the test service with `Host: host`, as JSON (any certificate: the service has none for that host yet). */
function landingAt(s: TestService, host: string): Promise<{ status: number; body: any }> {
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: s.service.port,
        path: '/',
        headers: { host, accept: 'application/json' },
        servername: host,
        rejectUnauthorized: false,
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += String(d);
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', fail);
    req.end();
  });
}

const refusal = (r: { stderr: string }) => JSON.parse(r.stderr.trim());

describe('npm run admin: car shares', () => {
  let s: TestService;
  const suffix = randomBytes(4).toString('hex');
  const host = `cli-${suffix}.cars.example`;
  let made: any;

  beforeAll(async () => {
    s = await startTestService();
    publicUrl = s.origin;
    const r = await admin(
      ...['create-car-share', '--url', `https://CLI-${suffix}.Cars.Example:8443/`],
      ...['--name', '  Cli Cars  ', '--ops-email', `ops@${host}`],
    );
    expect(r.code, r.stderr).toBe(0);
    made = JSON.parse(r.stdout);
  }, 180_000);
  afterAll(async () => {
    publicUrl = undefined;
    await s?.close();
  });

  it('create-car-share prints the car share, its issuer and its first operator with the generated password', async () => {
    expect(Object.keys(made)).toEqual(['Id', 'BaseUrl', 'Name', 'Status', 'Issuer', 'Operator']);
    expect(made).toEqual({
      Id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      BaseUrl: `https://${host}:8443`,
      Name: 'Cli Cars',
      Status: 'Active',
      Issuer: `https://${host}:8443/api/oauth`,
      Operator: { Id: expect.any(String), Username: `ops@${host}`, Password: expect.any(String) },
    });
    expect(made.Operator.Password.length).toBeGreaterThanOrEqual(16);
    const [row] = await sql<any>('select host, base_url, is_default from car_share where id = $1', [made.Id]);
    expect(row).toEqual({ host, base_url: `https://${host}:8443`, is_default: false });
    // The operator and the console's audit entry are the new car share's, and only its.
    const accounts = await sql<any>('select car_share_id, roles from user_account where username = $1', [
      `ops@${host}`,
    ]);
    expect(accounts).toEqual([{ car_share_id: made.Id, roles: ['user', 'ops'] }]);
    const audit = await sql<any>(
      'select car_share_id, actor_type, action, subject_id from audit_entry where subject_id = $1',
      [made.Operator.Id],
    );
    expect(audit).toEqual([
      { car_share_id: made.Id, actor_type: 'Cli', action: 'createUserAccount', subject_id: made.Operator.Id },
    ]);
    // Its authorization server's keys and dashboard client were made with it (CONTRACT §21), its own only.
    const keys = await sql<any>('select car_share_id from oauth_key where car_share_id = $1', [made.Id]);
    expect(keys.length).toBeGreaterThan(0);
    const dashboards = await sql<any>(
      'select client_id from client_application where car_share_id = $1 and is_first_party',
      [made.Id],
    );
    expect(dashboards).toEqual([{ client_id: `carshare-dashboard-${made.Id}` }]);
  });

  it('makes a car share that a running service answers at its host at once', async () => {
    let answer = await landingAt(s, host);
    for (let i = 0; i < 50 && answer.body.CarShareId !== made.Id; i++) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await landingAt(s, host);
    }
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ Name: 'Cli Cars', CarShareId: made.Id });
    expect(answer.body.Links.Docs).toBe(`https://${host}:8443/docs`);
    const dflt = await landingAt(s, 'localhost');
    expect(dflt.body.CarShareId).toBe(inject('defaultCarShareId'));
  });

  it('prints no password when --ops-password is given', async () => {
    const r = await admin(
      ...['create-car-share', '--url', `https://given-${suffix}.cars.example`, '--name', 'Given'],
      ...['--ops-email', `ops@given-${suffix}.example`, '--ops-password', 'a long and unusual passphrase'],
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.Operator).toEqual({ Id: expect.any(String), Username: `ops@given-${suffix}.example` });
    expect(out.BaseUrl).toBe(`https://given-${suffix}.cars.example`);
  }, 180_000);

  it('list-car-shares lists the default car share first, at PUBLIC_URL, then those made', async () => {
    const r = await admin('list-car-shares');
    expect(r.code, r.stderr).toBe(0);
    const { CarShares } = JSON.parse(r.stdout);
    expect(CarShares[0]).toMatchObject({
      Id: inject('defaultCarShareId'),
      BaseUrl: s.origin,
      Status: 'Active',
    });
    for (const c of CarShares) expect(Object.keys(c)).toEqual(['Id', 'BaseUrl', 'Name', 'Status']);
    expect(CarShares).toContainEqual({
      Id: made.Id,
      BaseUrl: `https://${host}:8443`,
      Name: 'Cli Cars',
      Status: 'Active',
    });
  }, 180_000);

  it('create-user and create-client work in the car share --car-share names, by Id or by URL', async () => {
    const byId = await admin(
      ...['create-user', '--username', `ana@${host}`, '--password', 'a long and unusual passphrase'],
      ...['--car-share', made.Id],
    );
    expect(byId.code, byId.stderr).toBe(0);
    // The same username is free in the default car share, and another account there.
    const dflt = await admin(
      ...['create-user', '--username', `ana@${host}`, '--password', 'another unusual passphrase'],
    );
    expect(dflt.code, dflt.stderr).toBe(0);
    // A URL matches by host, as requests do: any case, any port or path.
    const byUrl = await admin(
      ...['create-user', '--username', `bob@${host}`, '--password', 'a long and unusual passphrase'],
      ...['--car-share', `https://${host.toUpperCase()}:9443/somewhere`],
    );
    expect(byUrl.code, byUrl.stderr).toBe(0);
    const app = await admin(
      ...['create-client', '--name', 'Cli app', '--grant', 'client_credentials', '--scopes', 'cars:read'],
      ...['--car-share', `https://${host}:8443`],
    );
    expect(app.code, app.stderr).toBe(0);
    expect(app.stderr).toContain(`https://${host}:8443/api/oauth/token`);
    expect(app.stderr).toContain(`https://${host}:8443/api/oauth`);
    const rows = await sql<{ id: string; car_share_id: string }>(
      `select id, car_share_id from user_account where username in ($1, $2)
       union all select id, car_share_id from client_application where client_id = $3`,
      [`ana@${host}`, `bob@${host}`, JSON.parse(app.stdout).ClientId],
    );
    const where = Object.fromEntries(rows.map((r) => [r.id, r.car_share_id]));
    expect(where).toEqual({
      [JSON.parse(byId.stdout).Id]: made.Id,
      [JSON.parse(dflt.stdout).Id]: inject('defaultCarShareId'),
      [JSON.parse(byUrl.stdout).Id]: made.Id,
      [JSON.parse(app.stdout).Id]: made.Id,
    });
  }, 300_000);

  it('refuses a --car-share that names no car share (exit 1, naming the option) and writes nothing', async () => {
    for (const ref of ['https://nowhere.example', '00000000-0000-4000-8000-000000000000']) {
      const r = await admin(
        ...['create-user', '--username', `nobody@${host}`, '--password', 'a long and unusual passphrase'],
        ...['--car-share', ref],
      );
      expect(r.code, ref).toBe(1);
      expect(r.stdout).toBe('');
      expect(refusal(r)).toMatchObject({ ErrorCode: 'NotFound' });
      expect(refusal(r).Message).toContain('--car-share');
    }
    expect(await sql('select 1 from user_account where username = $1', [`nobody@${host}`])).toEqual([]);
  }, 180_000);

  it('refuses a --url that is no https origin, naming --url, and a host taken (any case, any port)', async () => {
    for (const url of [`http://bad-${suffix}.example`, `https://bad-${suffix}.example/path?q=1`]) {
      const r = await admin(
        ...['create-car-share', '--url', url, '--name', 'Bad', '--ops-email', `ops@bad-${suffix}.example`],
      );
      expect(r.code, url).toBe(1);
      expect(refusal(r)).toMatchObject({
        ErrorCode: 'InvalidFormat',
        Errors: [{ ErrorCode: 'InvalidFormat', FieldName: '--url' }],
      });
      expect(refusal(r).Message).toContain('--url');
    }
    const taken = await admin(
      ...['create-car-share', '--url', `https://${host.toUpperCase()}:9443`, '--name', 'Again'],
      ...['--ops-email', `ops@again-${suffix}.example`],
    );
    expect(taken.code).toBe(1);
    expect(refusal(taken)).toMatchObject({ ErrorCode: 'AlreadyExists' });
    expect(refusal(taken).Message).toContain('--url');
    // A refused first operator leaves no car share behind: one transaction.
    const operator = await admin(
      ...['create-car-share', '--url', `https://half-${suffix}.example`, '--name', 'Half'],
      ...['--ops-email', 'not-an-email'],
    );
    expect(operator.code).toBe(1);
    expect(refusal(operator).Errors[0].FieldName).toBe('--ops-email');
    expect(await sql('select 1 from car_share where host = $1', [`half-${suffix}.example`])).toEqual([]);
  }, 300_000);

  it('prints the usage and exits 2 when create-car-share lacks --url, --name or --ops-email', async () => {
    const r = await admin('create-car-share', '--url', `https://x-${suffix}.example`, '--name', 'Xyz');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing --ops-email');
    expect(r.stderr).toContain('npm run admin -- create-car-share --url URL');
  }, 180_000);
});
