// `npm start` as a process manager or a terminal runs it (CONTRACT §15): the ready line with the URLs, SIGTERM to
// the npm process and Ctrl-C (SIGINT to the whole process group) stop every process of the tree with status 0 and
// nothing above `info` in the log, on the embedded and on an external PostgreSQL; an old Node is told what to do;
// `create-client` prints a token request that works as printed.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../support/port.js';
import { waitFor } from '../support/wait.js';

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'carshare-npm-start-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Every process below `pid`, from the process table. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of rows)
      if (parent === p) {
        out.push(child);
        walk(child);
      }
  };
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Started {
  pid: number;
  base: string;
  env: Record<string, string>;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm start` in its own process group, as a terminal or a process manager starts it; resolves once ready. */
async function npmStart(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const full = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    HOST: '127.0.0.1',
    PORT: String(port),
    HTTP_PORT: String(await freePort()),
    ...env,
  };
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: full,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += String(d);
  });
  child.stderr.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const base = `https://localhost:${port}`;
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}`);
      return out.includes('"msg":"Carshare is ready');
    },
    { timeoutMs: 120_000, everyMs: 200, what: 'npm start to become ready' },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; it wrote:\n${out}`);
  });
  return { pid: child.pid!, base, env: full, output: () => out, exited };
}

const logLines = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string });

/** Stops as a process manager (SIGTERM to npm) or Ctrl-C (SIGINT to the group) does, and checks the aftermath. */
async function stopAndCheck(p: Started, how: 'SIGTERM to npm' | 'Ctrl-C') {
  const tree = descendants(p.pid);
  expect(tree.length).toBeGreaterThan(0);
  if (how === 'Ctrl-C') process.kill(-p.pid, 'SIGINT');
  else process.kill(p.pid, 'SIGTERM');
  expect(await p.exited).toBe(0);
  // Children may outlive npm by a moment; the check below names any that stay.
  await waitFor(() => !tree.some(alive), { timeoutMs: 15_000, everyMs: 100 }).catch(() => undefined);
  expect(tree.filter(alive)).toEqual([]);
  const lines = logLines(p.output());
  expect(lines.filter((l) => l.level > 30)).toEqual([]);
  expect(lines.map((l) => l.msg)).toContain('stopped');
}

beforeAll(async () => {
  await run('npm', ['run', '--silent', 'build'], { cwd: root });
}, 120_000);

describe('npm start on the embedded PostgreSQL', () => {
  it('logs one ready line naming the base URL, /docs and /dashboard; SIGTERM to npm stops the whole tree with 0', async () => {
    const dataDir = tempDir();
    const p = await npmStart({ DATA_DIR: dataDir });
    let stopped = false;
    try {
      const ready = logLines(p.output()).filter((l) => l.msg.includes(p.base));
      expect(ready).toHaveLength(1);
      expect(ready[0]!.msg).toContain(`${p.base}/docs`);
      expect(ready[0]!.msg).toContain(`${p.base}/dashboard`);
      // The embedded database runs below the service.
      const commands = descendants(p.pid).map((pid) =>
        execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim(),
      );
      expect(commands.some((c) => /\/postgres -D /.test(c))).toBe(true);
      // The service runs as the Decisions say: V8's two heap flags and no forced collections (no `--expose-gc`),
      // glibc's malloc with two arenas.
      const service = descendants(p.pid).find((pid) =>
        execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).includes('start.js'),
      );
      const args = readFileSync(`/proc/${service}/cmdline`, 'utf8').split('\0');
      expect(args).toEqual(expect.arrayContaining(['--max-semi-space-size=16', '--heap-growing-percent=50']));
      expect(args).not.toContain('--expose-gc');
      expect(readFileSync(`/proc/${service}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
      stopped = true;
      await stopAndCheck(p, 'SIGTERM to npm');
    } finally {
      // An assertion that failed above must not leave the service and its database running.
      if (!stopped) process.kill(-p.pid, 'SIGTERM');
    }
  }, 180_000);

  it('Ctrl-C (SIGINT to the process group) stops it the same way, with status 0', async () => {
    await stopAndCheck(await npmStart({ DATA_DIR: tempDir() }), 'Ctrl-C');
  }, 180_000);

  it('create-client prints, on stderr, a token request that works as printed; so do /docs’ Getting started steps', async () => {
    const dataDir = tempDir();
    const p = await npmStart({ DATA_DIR: dataDir });
    try {
      const created = await run(
        'npm',
        [
          'run',
          '--silent',
          'admin',
          '--',
          'create-client',
          '--name',
          'Next step',
          '--grant',
          'client_credentials',
          '--scopes',
          'cars:read',
        ],
        { cwd: root, env: p.env },
      );
      expect(JSON.parse(created.stdout)).toMatchObject({ ClientId: expect.any(String) });
      const commands = created.stderr
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith('curl '));
      expect(commands[0]).toContain(`--cacert '${join(dataDir, 'tls', 'localhost.crt')}'`);
      const token = JSON.parse((await run('sh', ['-c', `${commands[0]!} -s`])).stdout) as {
        access_token: string;
      };
      expect(token.access_token).toMatch(/\S{20,}/);
      const call = await run('sh', [
        '-c',
        `${commands[1]!.replace('ACCESS_TOKEN', token.access_token)} -s -w '\\n%{http_code}'`,
      ]);
      const [body, status] = call.stdout.split('\n');
      expect(status).toBe('200');
      expect(JSON.parse(body!)).toMatchObject({ Cars: [] });

      // The reference's Getting started, step by step, with the variables it says to set.
      const doc = JSON.parse(
        (
          await run('curl', [
            '-s',
            '--cacert',
            join(dataDir, 'tls', 'localhost.crt'),
            `${p.base}/api/openapi.json`,
          ])
        ).stdout,
      ) as { info: { description: string } };
      const started = doc.info.description.split('## Getting started')[1]!.split('\n## ')[0]!;
      const steps = [...started.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
      expect(steps).toHaveLength(3);
      const sh = (cmd: string, vars: Record<string, string> = {}) =>
        run('sh', ['-c', cmd], { cwd: root, env: { ...p.env, ...vars } });
      const app = JSON.parse((await sh(steps[0]!)).stdout) as { ClientId: string; ClientSecret: string };
      const vars = { CLIENT_ID: app.ClientId, CLIENT_SECRET: app.ClientSecret };
      const guided = JSON.parse((await sh(steps[1]!, vars)).stdout) as { access_token: string };
      const guidedCall = await sh(`${steps[2]!} -s -w '\\n%{http_code}'`, {
        ACCESS_TOKEN: guided.access_token,
      });
      expect(guidedCall.stdout.split('\n').at(-1)).toBe('200');
    } finally {
      await stopAndCheck(p, 'SIGTERM to npm');
    }
  }, 180_000);
});

describe('npm start on an external PostgreSQL (DATABASE_URL)', () => {
  let url: URL;
  const server = new URL(inject('databaseUrl'));
  server.pathname = '/postgres';
  const name = `carshare_npmstart_${Date.now().toString(36)}`;
  const admin = (sql: string) => {
    const c = new pg.Client({ connectionString: server.toString() });
    return c
      .connect()
      .then(() => c.query(sql))
      .finally(() => c.end());
  };
  beforeAll(async () => {
    await admin(`create database ${name}`);
    url = new URL(server);
    url.pathname = `/${name}`;
  });
  afterAll(() => admin(`drop database if exists ${name} with (force)`));

  for (const how of ['SIGTERM to npm', 'Ctrl-C'] as const)
    it(`${how} stops it with status 0 and nothing above info`, async () => {
      const p = await npmStart({ DATA_DIR: tempDir(), DATABASE_URL: url.toString() });
      await stopAndCheck(p, how);
    }, 180_000);
});

describe('an older Node', () => {
  it('npm install under it is quiet about engines (the project brings Node 24)', async () => {
    // The system npm on the system Node, as a newcomer runs it; --dry-run checks the same tree without writing.
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_'))),
      PATH: '/usr/local/bin:/usr/bin:/bin', // not node_modules/.bin: npm runs on the system Node
    };
    const install = (extra: string[]) =>
      run('/usr/bin/npm', ['install', '--dry-run', '--no-audit', '--no-fund', ...extra], { cwd: root, env });
    const quiet = await install([]);
    expect(`${quiet.stdout}${quiet.stderr}`).not.toContain('EBADENGINE');
    // Without the project's setting, the same install warns: the check above can fail.
    const loud = await install(['--loglevel=warn']);
    expect(loud.stderr).toContain('EBADENGINE');
  }, 120_000);

  it('exits 1 with a message naming Node 24 and npm start', async () => {
    const system = '/usr/bin/node';
    const version = execFileSync(system, ['--version'], { encoding: 'utf8' }).trim();
    expect(Number(version.slice(1).split('.')[0])).toBeLessThan(24);
    const r = await run(system, ['dist/src/start.js'], { cwd: root }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect('code' in r ? r.code : 0).toBe(1);
    expect(r.stderr).toContain('Node 24');
    expect(r.stderr).toContain('npm start');
    expect(r.stderr).not.toMatch(/at .*node_modules/); // a message, not a crash inside a dependency
  });
});

describe("the README's first API call, by copy-paste", () => {
  /** The shell commands of the README section, block by block. */
  function readmeBlocks(): string[][] {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.split('## Your first API call')[1]!.split('\n## ')[0]!;
    return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split('\n'));
  }

  it("passes a client secret that begins with '-' (one in 64 do) to user-token as the option's value", () => {
    const asUser = readmeBlocks()[3]!;
    const line = asUser.find((l) => l.includes('user-token'))!;
    // The words the shell gives the command after `--`, quotes removed.
    const words = [
      ...line
        .split(' -- ')[1]!
        .replace('CLIENT_SECRET', '-z4dNyR4q')
        .matchAll(/"[^"]*"|'[^']*'|\S+/g),
    ].map((m) => m[0].replace(/^["']|["']$/g, ''));
    const options = Object.fromEntries(
      ['client-id', 'client-secret', 'redirect-uri', 'username', 'password', 'scope', 'car-share'].map(
        (o) => [o, { type: 'string' as const }],
      ),
    );
    // As src/web/user-token.ts reads them: `--client-secret -z4d…` is refused there as an ambiguous option.
    expect(parseArgs({ args: words, options }).values['client-secret']).toBe('-z4dNyR4q');
  });

  it('has five commands or fewer to the first call, and they work against a fresh npm start', async () => {
    const blocks = readmeBlocks();
    const [start, register, call, asUser] = blocks as [string[], string[], string[], string[]];
    expect(start).toEqual(['npm install && npm start']);
    // npm install, npm start, create-client, the curl it prints, the call.
    expect(2 + register.length + 1 + call.length).toBeLessThanOrEqual(5);

    const dataDir = tempDir();
    const p = await npmStart({ DATA_DIR: dataDir }); // npm install has run already: this is the repository
    // The only rewrite: this machine is shared, so the port and the data folder are the test's own.
    const local = (cmd: string) =>
      cmd.replaceAll('https://localhost:8443', p.base).replaceAll('.data/', `${dataDir}/`);
    const sh = async (cmd: string) => run('sh', ['-c', cmd], { cwd: root, env: p.env });
    try {
      const registered = await sh(local(register[0]!));
      const printed = registered.stderr
        .split('\n')
        .find((l) => l.trim().startsWith('curl '))!
        .trim();
      const token = JSON.parse((await sh(`${printed} -s`)).stdout) as { access_token: string };
      const first = await sh(
        `${local(call[0]!.replace('ACCESS_TOKEN', token.access_token))} -s -w '\\n%{http_code}'`,
      );
      expect(first.stdout.split('\n').at(-1)).toBe('200');
      expect(JSON.parse(first.stdout.split('\n')[0]!)).toMatchObject({ Cars: [] });

      // As a signed-in user: create the user and the app, paste the app's id and secret, then the token.
      const [createUser, createApp, userToken, userCall] = asUser as [string, string, string, string];
      await sh(local(createUser));
      const app = JSON.parse((await sh(local(createApp))).stdout) as {
        ClientId: string;
        ClientSecret: string;
      };
      const tokens = JSON.parse(
        (
          await sh(
            local(
              userToken.replace('CLIENT_ID', app.ClientId).replace('CLIENT_SECRET', `'${app.ClientSecret}'`),
            ),
          )
        ).stdout,
      ) as { access_token: string; id_token?: string };
      expect(tokens.access_token).toMatch(/\S{20,}/);
      const mine = await sh(
        `${local(userCall.replace('ACCESS_TOKEN', tokens.access_token))} -s -w '\\n%{http_code}'`,
      );
      expect(mine.stdout.split('\n').at(-1)).toBe('200');
    } finally {
      await stopAndCheck(p, 'SIGTERM to npm');
    }
  }, 240_000);
});
