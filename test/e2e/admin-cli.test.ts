// `npm run admin` as an operator runs it: usage and exit 2 for a wrong call, refusals in the API's error shape.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

const admin = (...args: string[]) => npmRun('admin', ...args);

function npmRun(
  script: string,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/root',
        DATABASE_URL: inject('databaseUrl'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

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
